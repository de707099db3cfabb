package dev.muster.server.stream;

import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import dev.muster.proto.v1.WatchStarted;
import dev.muster.server.leader.Leadership;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@code Watch} call: pulls from the journal and pushes to the call only while the transport says it
 * is ready. Its whole per-subscriber state is a cursor (the last sequence sent) and a few flags: events
 * are never queued here. When the transport is not ready nothing is read; when the reader's cursor has
 * fallen out of the journal's window by the time it is ready again, it gets a snapshot instead.
 *
 * <h2>Concurrency</h2>
 * Three kinds of thread ask this call to make progress: the transport ({@code onReady}, {@code onCancel}),
 * the journal's appenders (a wake-up after each append) and the service (leadership changed). None of
 * them touches the call; each calls {@link #signal()}, which counts the request in {@code wip} and, only
 * when that moves {@code wip} from 0 to 1, submits one drain task to the executor. That task owns the
 * call until it brings {@code wip} back to 0 (the "work in progress" drain loop):
 * <ul>
 *   <li>a signal that arrives while a drain runs only increments {@code wip}, so the running drain loops
 *       once more: no wake-up is lost;</li>
 *   <li>a signal never starts a second drainer: sends ({@code onNext}/{@code onError}) are serialized, as
 *       {@link io.grpc.ServerCall} requires;</li>
 *   <li>a drainer that has sent {@value #MAX_BATCHES_PER_TURN} batches and could send more re-submits
 *       itself without giving up ownership, so one fast reader cannot hold an executor thread forever.</li>
 * </ul>
 * Fields marked "drainer-confined" are touched only by the task that owns the call; the atomic
 * {@code wip} updates order successive owners (happens-before). {@code cursor} and {@code messagesSent} are
 * also volatile so that metrics may read them from any thread. Appender threads only ever increment
 * {@code wip} (and at most submit a task): the scheduling hot path never serializes or sends.
 */
final class WatchCall {
    private static final Logger LOG = LoggerFactory.getLogger(WatchCall.class);
    static final int MAX_BATCHES_PER_TURN = 16;

    private final long id;
    private final ServerCallStreamObserver<WatchResponse> out;
    private final AllocationJournal journal;
    private final Leadership leadership;
    private final Executor executor;
    private final int batch;
    private final AllocationsService.Counters counters;
    private final Runnable onFinish;
    private final AtomicInteger wip = new AtomicInteger();

    private boolean startedSent; // drainer-confined
    private boolean snapshotFirst; // drainer-confined
    private boolean finished; // drainer-confined
    private Runnable unsubscribe; // written before the first signal, run by the drainer that finishes
    private volatile long cursor; // written by the drainer only
    private volatile long messagesSent; // written by the drainer only

    WatchCall(long id, WatchRequest request, ServerCallStreamObserver<WatchResponse> out, AllocationJournal journal, Leadership leadership,
            Executor executor, int batch, AllocationsService.Counters counters, Runnable onFinish) {
        this.id = id;
        this.out = out;
        this.journal = journal;
        this.leadership = leadership;
        this.executor = executor;
        this.batch = batch;
        this.counters = counters;
        this.onFinish = onFinish;
        this.cursor = request.getResumeAfter();
        boolean fresh = request.getJournalId().isEmpty() && request.getResumeAfter() == 0;
        this.snapshotFirst = !(fresh || request.getJournalId().equals(journal.id()));
    }

    /** Registers the transport handlers and the journal wake-up; must run inside the service method. */
    void start() {
        out.setOnReadyHandler(this::signal);
        out.setOnCancelHandler(this::signal);
        unsubscribe = journal.subscribe(this::signal);
        signal();
    }

    /** Asks for a drain; never blocks, never touches the call. Safe from any thread. */
    void signal() {
        if (wip.getAndIncrement() == 0) {
            submit(1);
        }
    }

    long id() {
        return id;
    }

    long cursor() {
        return cursor;
    }

    long messagesSent() {
        return messagesSent;
    }

    private void submit(int missed) {
        try {
            executor.execute(() -> drain(missed));
        } catch (RejectedExecutionException e) {
            // The executor is shut down (the server is stopping). This thread owns the call (wip > 0 and no
            // task runs), so it may close it; wip stays > 0 so nobody drains again.
            if (!finished) {
                closeWith(Status.UNAVAILABLE.withDescription("allocation stream shutting down"));
            }
        }
    }

    private void drain(int missed) {
        for (;;) {
            if (drainOnce()) {
                submit(missed); // yield the thread, keep ownership
                return;
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    /** Sends what the transport takes; returns true when it yielded with more to send. */
    private boolean drainOnce() {
        if (finished) {
            return false;
        }
        try {
            if (out.isCancelled()) {
                finish();
                return false;
            }
            if (!leadership.leading()) {
                Leadership.Route route = leadership.route();
                out.onError(LeaderRedirect.notLeader(route.grpcTarget(), route.describe()));
                finish();
                return false;
            }
            int batches = 0;
            while (out.isReady()) {
                if (!startedSent) {
                    send(WatchResponse.newBuilder()
                            .setStarted(WatchStarted.newBuilder().setJournalId(journal.id()).setLastSequence(journal.lastSequence()))
                            .build());
                    startedSent = true;
                    continue;
                }
                if (snapshotFirst) {
                    sendSnapshot(journal.snapshot());
                    snapshotFirst = false;
                    continue;
                }
                if (++batches > MAX_BATCHES_PER_TURN) {
                    return true;
                }
                switch (journal.readAfter(cursor, batch)) {
                    case AllocationJournal.Read.SnapshotRequired required -> sendSnapshot(required.snapshot());
                    case AllocationJournal.Read.Events events -> {
                        if (events.events().isEmpty()) {
                            return false; // up to date: the next append signals
                        }
                        for (SequencedEvent event : events.events()) {
                            if (!out.isReady()) {
                                return false; // the rest stays in the journal; onReady signals
                            }
                            send(WatchResponse.newBuilder().setEvent(ProtoConverters.toProto(event)).build());
                            cursor = event.sequence();
                            counters.eventsSent.increment();
                        }
                    }
                }
            }
            return false;
        } catch (RuntimeException e) {
            LOG.error("allocation stream {} failed at sequence {}", id, cursor, e);
            closeWith(Status.INTERNAL.withDescription("allocation stream failed: " + e));
            return false;
        }
    }

    private void sendSnapshot(AllocationSnapshot snapshot) {
        send(WatchResponse.newBuilder().setSnapshot(ProtoConverters.toProto(snapshot)).build());
        cursor = snapshot.sequence();
        counters.snapshotsSent.increment();
    }

    private void send(WatchResponse response) {
        out.onNext(response);
        messagesSent++; // single writer (the drainer)
    }

    private void closeWith(Status status) {
        try {
            out.onError(status.asRuntimeException());
        } catch (RuntimeException alreadyClosed) {
            LOG.debug("allocation stream {} already closed", id, alreadyClosed);
        }
        finish();
    }

    private void finish() {
        finished = true;
        if (unsubscribe != null) {
            unsubscribe.run();
        }
        onFinish.run();
    }
}
