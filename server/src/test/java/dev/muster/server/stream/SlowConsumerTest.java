package dev.muster.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.rpc.GrpcCleanup;
import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import dev.muster.server.leader.Leadership;
import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A consumer that stops reading while a million events are appended costs the extender a cursor, not a
 * buffer: the service hands the transport only what the consumer's flow control admits, and when the
 * consumer reads again it is resynchronised with a snapshot whose totals are right.
 */
class SlowConsumerTest {
    private static final int WINDOW = 65_536;
    private static final int EVENTS = 1_000_000;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final GrpcCleanup cleanup = new GrpcCleanup();
    private final ExecutorService drain = cleanup.register(Executors.newFixedThreadPool(2));
    private final AllocationJournal journal = new AllocationJournal(WINDOW, java.time.InstantSource.system());
    private final AllocationsService service = new AllocationsService(journal, Leadership.ALWAYS, drain);
    private final RandomEvents source = new RandomEvents(99);
    private final IndependentFold fold = new IndependentFold();

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    @Test
    void inProcessTheServiceSendsExactlyWhatTheConsumerAskedForThenASnapshot() {
        String name = InProcessServerBuilder.generateName();
        cleanup.register(GrpcServers.build(InProcessServerBuilder.forName(name), service).start());
        ManualReader reader = new ManualReader(cleanup.register(InProcessChannelBuilder.forName(name).build()));
        append(2);
        reader.request(3); // started, event 1, event 2 — then nothing more is read

        await().atMost(WAIT).until(() -> reader.count() == 3);
        append(EVENTS);

        assertThat(service.subscribers()).singleElement().satisfies(s -> {
            assertThat(s.messagesSent()).as("messages handed to the transport").isEqualTo(3);
            assertThat(s.cursor()).isEqualTo(2);
        });

        reader.request(10);
        await().atMost(WAIT).until(() -> reader.count() == 4);
        append(5);
        await().atMost(WAIT).until(() -> reader.count() == 9);

        assertResynchronised(reader.messages(), 3);
    }

    @Test
    void overNettyTheServiceStopsAtTheFlowControlWindowThenResynchronises() {
        int port = cleanup.register(GrpcServers.build(GrpcServers.netty(new InetSocketAddress("127.0.0.1", 0), Optional.empty()), service).start()).port();
        // A fixed 64 KiB HTTP/2 window (no automatic growth), so the bound below is easy to state.
        ManagedChannel channel = cleanup.register(NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().flowControlWindow(65_535).build());
        ManualReader reader = new ManualReader(channel);
        append(2);
        reader.request(3);

        await().atMost(WAIT).until(() -> reader.count() == 3);
        append(EVENTS);

        // What netty may have accepted for an unread stream: the 64 KiB window plus gRPC's 32 KiB
        // "ready" threshold of queued bytes, i.e. about 100 KiB; every event message is over 30 bytes,
        // so fewer than 4,000 messages ever reach the transport, whatever the event count.
        long sentWhileStalled = service.subscribers().getFirst().messagesSent();
        assertThat(sentWhileStalled).isLessThan(4_000);

        reader.request(Integer.MAX_VALUE);
        long expected = journal.lastSequence();
        await().atMost(WAIT).until(() -> reader.last().hasSnapshot() && reader.last().getSnapshot().getSequence() == expected);
        int before = reader.count();
        append(5);
        await().atMost(WAIT).until(() -> reader.count() == before + 5);

        // While stalled the reader may already have been sent a snapshot (the journal outran it before the
        // window filled), so only the shape of the stream is checked here.
        assertResynchronised(reader.messages(), -1);
    }

    /**
     * The messages form one valid stream — started, then events each following the last, snapshots (whose
     * totals equal the fold of every event up to their sequence) resetting the count — whose last snapshot
     * and which ends at the journal's head. When {@code stalledAfter} is known (not -1), the snapshot right
     * after it is the resynchronisation at the end of the stall, followed by the five new events only.
     */
    private void assertResynchronised(List<WatchResponse> got, int stalledAfter) {
        assertThat(got.getFirst().hasStarted()).isTrue();
        RandomEvents replay = new RandomEvents(99);
        IndependentFold replayed = new IndependentFold();
        long replayedUpTo = 0;
        long cursor = 0;
        int lastSnapshot = -1;
        for (int i = 1; i < got.size(); i++) {
            WatchResponse m = got.get(i);
            if (m.hasSnapshot()) {
                long seq = m.getSnapshot().getSequence();
                assertThat(seq).as("snapshot %d moves forward", i).isGreaterThan(cursor);
                while (replayedUpTo < seq) {
                    replayed.apply(replay.next());
                    replayedUpTo++;
                }
                assertThat(IndependentFold.totalsOf(ProtoConverters.fromProto(m.getSnapshot()))).as("totals of snapshot at %d", seq).isEqualTo(replayed.totals());
                cursor = seq;
                lastSnapshot = i;
            } else {
                assertThat(m.getEvent().getSequence()).as("message %d", i).isEqualTo(cursor + 1);
                cursor++;
            }
        }
        assertThat(lastSnapshot).as("a snapshot resynchronised the reader").isPositive();
        if (stalledAfter >= 0) {
            assertThat(lastSnapshot).as("the snapshot comes right after what was sent before the stall").isEqualTo(stalledAfter);
            assertThat(got.get(lastSnapshot).getSnapshot().getSequence()).isEqualTo(EVENTS + 2);
            assertThat(got.size() - lastSnapshot - 1).as("the new events after it").isEqualTo(5);
        }
        assertThat(cursor).isEqualTo(journal.lastSequence());
        assertThat(IndependentFold.totalsOf(journal.snapshot())).isEqualTo(fold.totals());
    }

    private void append(int n) {
        for (int i = 0; i < n; i++) {
            var e = source.next();
            fold.apply(e);
            journal.append(e);
        }
    }

    /** A Watch call with manual inbound flow control: nothing is read unless the test requests it. Thread-safe. */
    private static final class ManualReader implements ClientResponseObserver<WatchRequest, WatchResponse> {
        private final List<WatchResponse> messages = new ArrayList<>(); // guarded by this
        private volatile ClientCallStreamObserver<WatchRequest> call;

        ManualReader(ManagedChannel channel) {
            AllocationsGrpc.newStub(channel).watch(WatchRequest.newBuilder().build(), this);
        }

        @Override
        public void beforeStart(ClientCallStreamObserver<WatchRequest> requestStream) {
            requestStream.disableAutoRequestWithInitial(0);
            call = requestStream;
        }

        void request(int n) {
            call.request(n);
        }

        @Override
        public synchronized void onNext(WatchResponse value) {
            messages.add(value);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onCompleted() {}

        synchronized int count() {
            return messages.size();
        }

        synchronized WatchResponse last() {
            return messages.isEmpty() ? WatchResponse.getDefaultInstance() : messages.getLast();
        }

        synchronized List<WatchResponse> messages() {
            return List.copyOf(messages);
        }
    }
}
