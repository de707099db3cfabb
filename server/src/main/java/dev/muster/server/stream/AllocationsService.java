package dev.muster.server.stream;

import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import dev.muster.server.leader.Leadership;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code muster.v1.Allocations}: serves {@code Watch} from an {@link AllocationJournal}.
 *
 * <p>Each call sends {@code started} (the journal id), then — when the caller's cursor belongs to another
 * journal — a snapshot, then events in sequence order, reading the journal in batches only while the
 * transport is ready. A subscriber costs a cursor, not a buffer: one that reads nothing while a million
 * events are appended holds nothing but its last sent sequence, and is resynchronised with a snapshot
 * when it reads again (see {@link WatchCall} for the flow control and its concurrency).
 *
 * <p>Only the leader serves: when the process does not lead ({@link Leadership}), a call (new, or open when
 * {@link #servingChanged()} is called or the next event is appended) ends with UNAVAILABLE "not the
 * leader" and the {@code muster-leader-address} trailer.
 *
 * <p>This class is thread-safe. The open calls live in a concurrent map (each removes itself when it
 * ends); the counters are atomic. Sends run on {@code drainExecutor}, never on the appending thread;
 * the owner shuts that executor down after the server.
 */
public final class AllocationsService extends AllocationsGrpc.AllocationsImplBase {
    /** Journal read size per batch. */
    public static final int DEFAULT_BATCH = 128;

    private final AllocationJournal journal;
    private final Leadership leadership;
    private final Executor drainExecutor;
    private final int batch;
    private final Map<Long, WatchCall> calls = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Counters counters = new Counters();

    /** Message counters shared by the calls. */
    static final class Counters {
        final LongAdder eventsSent = new LongAdder();
        final LongAdder snapshotsSent = new LongAdder();
    }

    /** What metrics and debugging see of one open call. */
    public record Subscriber(long id, long cursor, long messagesSent) {}

    public AllocationsService(AllocationJournal journal, Leadership leadership, Executor drainExecutor) {
        this(journal, leadership, drainExecutor, DEFAULT_BATCH);
    }

    public AllocationsService(AllocationJournal journal, Leadership leadership, Executor drainExecutor, int batch) {
        if (batch < 1) {
            throw new IllegalArgumentException("batch must be at least 1, got " + batch);
        }
        this.journal = Objects.requireNonNull(journal, "journal");
        this.leadership = Objects.requireNonNull(leadership, "leadership");
        this.drainExecutor = Objects.requireNonNull(drainExecutor, "drainExecutor");
        this.batch = batch;
    }

    @Override
    public void watch(WatchRequest request, StreamObserver<WatchResponse> responseObserver) {
        ServerCallStreamObserver<WatchResponse> out = (ServerCallStreamObserver<WatchResponse>) responseObserver;
        if (request.getResumeAfter() < 0) {
            out.onError(Status.INVALID_ARGUMENT.withDescription("resume_after must not be negative, got " + request.getResumeAfter()).asRuntimeException());
            return;
        }
        if (!leadership.leading()) {
            Leadership.Route route = leadership.route();
            out.onError(LeaderRedirect.notLeader(route.grpcTarget(), route.describe()));
            return;
        }
        long id = ids.incrementAndGet();
        WatchCall call = new WatchCall(id, request, out, journal, leadership, drainExecutor, batch, counters, () -> calls.remove(id));
        calls.put(id, call);
        call.start();
    }

    /** Makes every open call re-check leadership now (call when leadership is lost). */
    public void servingChanged() {
        calls.values().forEach(WatchCall::signal);
    }

    /** The open calls, oldest first: a copy. */
    public List<Subscriber> subscribers() {
        return calls.values().stream()
                .map(c -> new Subscriber(c.id(), c.cursor(), c.messagesSent()))
                .sorted(Comparator.comparingLong(Subscriber::id))
                .toList();
    }

    public long eventsSent() {
        return counters.eventsSent.sum();
    }

    public long snapshotsSent() {
        return counters.snapshotsSent.sum();
    }
}
