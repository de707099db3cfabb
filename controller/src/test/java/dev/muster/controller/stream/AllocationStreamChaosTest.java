package dev.muster.controller.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.rpc.GrpcCleanup;
import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.server.leader.Leadership;
import dev.muster.server.stream.AllocationsService;
import dev.muster.server.stream.IndependentFold;
import dev.muster.server.stream.RandomEvents;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client whose calls are cut at random points — cancelled by the client mid-stream (the message that
 * triggered the cut delivered or lost), or killed with the server's transport — still sees each event
 * exactly once and in order, and folds to the same totals as an independent fold of what was appended.
 */
class AllocationStreamChaosTest {
    private static final int EVENTS = 20_000;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final GrpcCleanup cleanup = new GrpcCleanup();
    private final ExecutorService drain = cleanup.register(Executors.newFixedThreadPool(2));
    private final RecordingListener listener = new RecordingListener();
    private ManagedGrpcServer server;

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
        if (server != null) {
            server.close();
        }
    }

    @Test
    void withinTheWindowEveryEventArrivesExactlyOnceInOrder() throws Exception {
        Chaos chaos = run(EVENTS, 1 << 16, 11);

        assertThat(listener.violations()).isEmpty();
        assertThat(listener.snapshots()).as("the window always held the cursor").isEmpty();
        assertThat(listener.eventSequences()).containsExactlyElementsOf(LongStream.rangeClosed(1, EVENTS).boxed().toList());
        assertThat(IndependentFold.totalsOf(listener.folded())).isEqualTo(chaos.fold.totals());
        assertThat(chaos.cuts.get()).as("the chaos actually cut calls").isPositive();
    }

    @Test
    void withASmallWindowTheStreamStaysContinuousAcrossSnapshots() throws Exception {
        Chaos chaos = run(EVENTS, 64, 12);

        assertThat(listener.violations()).isEmpty();
        assertThat(listener.last()).isEqualTo(EVENTS);
        assertThat(IndependentFold.totalsOf(listener.folded())).isEqualTo(chaos.fold.totals());
        assertThat(listener.folded().gangs()).isEqualTo(chaos.journal.snapshot().gangs());
        assertThat(chaos.cuts.get()).isPositive();
    }

    private record Chaos(AllocationJournal journal, IndependentFold fold, AtomicInteger cuts) {}

    private Chaos run(int events, int window, long seed) throws Exception {
        Random random = new Random(seed);
        AllocationJournal journal = new AllocationJournal(window, java.time.InstantSource.system());
        AllocationsService service = new AllocationsService(journal, Leadership.ALWAYS, drain, 32);
        String name = InProcessServerBuilder.generateName();
        server = GrpcServers.build(InProcessServerBuilder.forName(name), service).start();
        AtomicInteger cuts = new AtomicInteger();
        CuttingInterceptor cutter = new CuttingInterceptor(new Random(seed + 1), cuts);
        AllocationStreamClient client = cleanup.register(new AllocationStreamClient(name,
                t -> InProcessChannelBuilder.forName(t).intercept(cutter).build(), listener, AllocationStreamClientTest.FAST));
        client.start();

        RandomEvents source = new RandomEvents(seed);
        IndependentFold fold = new IndependentFold();
        int appended = 0;
        while (appended < events) {
            int burst = Math.min(events - appended, 1 + random.nextInt(800));
            for (int i = 0; i < burst; i++) {
                var e = source.next();
                fold.apply(e);
                journal.append(e);
            }
            appended += burst;
            long catchUpTo = appended - random.nextInt(burst); // let the client consume while the chaos is on
            await().atMost(WAIT).until(() -> listener.last() >= catchUpTo);
            if (random.nextInt(6) == 0) { // kill the server's transports mid-stream, then come back
                server.close();
                cuts.incrementAndGet();
                server = GrpcServers.build(InProcessServerBuilder.forName(name), service).start();
            }
        }
        cutter.stop(); // let the client catch up
        await().atMost(WAIT).until(() -> listener.last() == events);
        assertThat(ProtoConverters.fromProto(ProtoConverters.toProto(journal.snapshot()))).isEqualTo(journal.snapshot());
        return new Chaos(journal, fold, cuts);
    }

    /**
     * Cancels a Watch call after a random message (about one in 300), forwarding or dropping that message
     * at random. Thread-safe: the random source is guarded by its own lock.
     */
    private static final class CuttingInterceptor implements ClientInterceptor {
        private final Random random; // guarded by itself
        private final AtomicInteger cuts;
        private volatile boolean active = true;

        CuttingInterceptor(Random random, AtomicInteger cuts) {
            this.random = random;
            this.cuts = cuts;
        }

        void stop() {
            active = false;
        }

        private int roll(int bound) {
            synchronized (random) {
                return random.nextInt(bound);
            }
        }

        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            return new ForwardingClientCall.SimpleForwardingClientCall<>(next.newCall(method, options)) {
                @Override
                public void start(Listener<R> responseListener, Metadata headers) {
                    ClientCall<Q, R> call = this;
                    super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<>(responseListener) {
                        @Override
                        public void onMessage(R message) {
                            if (active && roll(300) == 0) {
                                cuts.incrementAndGet();
                                call.cancel("chaos: cut after a random message", null);
                                if (roll(2) == 0) {
                                    return; // the message is lost with the call
                                }
                            }
                            super.onMessage(message);
                        }
                    }, headers);
                }
            };
        }
    }
}
