package dev.muster.controller.stream;

import static dev.muster.controller.stream.ScriptedAllocations.event;
import static dev.muster.controller.stream.ScriptedAllocations.serveProperly;
import static dev.muster.controller.stream.ScriptedAllocations.snapshot;
import static dev.muster.controller.stream.ScriptedAllocations.started;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.leader.LeaderIdentity;
import dev.muster.common.rpc.GrpcCleanup;
import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.ManagedGrpcServer;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.proto.v1.AllocationEvent;
import dev.muster.proto.v1.PodAllocation;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import dev.muster.server.leader.Leadership;
import dev.muster.server.stream.AllocationsService;
import dev.muster.server.stream.RandomEvents;
import io.grpc.BindableService;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AllocationStreamClientTest {
    static final dev.muster.core.time.Backoff FAST = new dev.muster.core.time.Backoff(Duration.ofMillis(1), Duration.ofMillis(50));
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final GrpcCleanup cleanup = new GrpcCleanup();
    private final ExecutorService drain = cleanup.register(Executors.newFixedThreadPool(2));
    private final RecordingListener listener = new RecordingListener();

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    @Test
    void deliversEveryEventInOrderAndThenNewOnes() {
        AllocationJournal journal = journal(1000);
        String name = serve(new AllocationsService(journal, Leadership.ALWAYS, drain));
        append(journal, 40);
        AllocationStreamClient client = client(name, listener);

        await().atMost(WAIT).until(() -> listener.last() == 40);
        append(journal, 25);
        await().atMost(WAIT).until(() -> listener.last() == 65);

        assertThat(listener.eventSequences()).containsExactlyElementsOf(LongStream.rangeClosed(1, 65).boxed().toList());
        assertThat(listener.snapshots()).isEmpty();
        assertThat(listener.violations()).isEmpty();
        assertThat(listener.folded()).isEqualTo(journal.snapshot());
        assertThat(client.isConnected()).isTrue();
        assertThat(client.journalId()).isEqualTo(journal.id());
        assertThat(client.lastAppliedSequence()).isEqualTo(65);
    }

    /** Records when the client says a connection caught up, and how far it had applied by then. */
    private static final class CaughtUp implements AllocationListener {
        final java.util.List<Long> appliedWhenCaughtUp = new java.util.concurrent.CopyOnWriteArrayList<>();
        volatile long applied;

        @Override
        public void onSnapshot(AllocationSnapshot snapshot) {
            applied = snapshot.sequence();
        }

        @Override
        public void onEvent(SequencedEvent event) {
            applied = event.sequence();
        }

        @Override
        public void onCaughtUp() {
            appliedWhenCaughtUp.add(applied);
        }
    }

    @Test
    void anEmptyJournalIsCaughtUpAtOnce() {
        String name = serve(new AllocationsService(journal(1000), Leadership.ALWAYS, drain));
        CaughtUp l = new CaughtUp();
        client(name, l);
        await().atMost(WAIT).until(() -> !l.appliedWhenCaughtUp.isEmpty());
        assertThat(l.appliedWhenCaughtUp).containsExactly(0L);
    }

    @Test
    void aConnectionIsCaughtUpOnlyOnceTheHeadItWasToldOfIsApplied() {
        AllocationJournal journal = journal(1000);
        String name = serve(new AllocationsService(journal, Leadership.ALWAYS, drain));
        append(journal, 300);
        CaughtUp l = new CaughtUp();
        client(name, l);
        await().atMost(WAIT).until(() -> !l.appliedWhenCaughtUp.isEmpty());
        assertThat(l.appliedWhenCaughtUp.getFirst()).isEqualTo(300L);
    }

    static Stream<Arguments> brokenFirstCalls() {
        return Stream.of(
                broken("a gap", 2, started("J", 4), event(1), event(2), event(4)),
                broken("a repeated event", 2, started("J", 3), event(1), event(2), event(2)),
                broken("an event before started", 0, event(1)),
                broken("a second started", 1, started("J", 1), event(1), started("J", 1)),
                broken("a message without kind", 1, started("J", 2), event(1), WatchResponse.getDefaultInstance()),
                broken("an event whose pod has no uid", 1, started("J", 2), event(1),
                        WatchResponse.newBuilder().setEvent(AllocationEvent.newBuilder().setSequence(2).setAllocated(PodAllocation.getDefaultInstance())).build()),
                broken("started without a journal id", 0, started("", 1), event(1)));
    }

    private static Arguments broken(String name, long appliedBeforeTheError, WatchResponse... firstCall) {
        return Arguments.of(Named.of(name, List.of(firstCall)), appliedBeforeTheError);
    }

    @ParameterizedTest(name = "{0}: drop the call, resume after the last applied, deliver each event once")
    @MethodSource("brokenFirstCalls")
    void aProtocolErrorDropsTheCallAndResumesFromTheLastApplied(List<WatchResponse> firstCall, long appliedBeforeTheError) {
        ScriptedAllocations server = new ScriptedAllocations((call, request, out) -> {
            if (call == 0) {
                firstCall.forEach(out::onNext);
            } else {
                serveProperly("J", 5, request, out);
            }
        });
        AllocationStreamClient client = client(serve(server), listener);

        await().atMost(WAIT).until(() -> listener.last() == 5);

        assertThat(listener.eventSequences()).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(listener.violations()).isEmpty();
        assertThat(client.protocolErrors()).isEqualTo(1);
        assertThat(server.requests()).hasSize(2);
        assertThat(server.requests().get(1).getResumeAfter()).isEqualTo(appliedBeforeTheError);
        assertThat(client.journalId()).isEqualTo("J");
    }

    @Test
    void aNewJournalMustStartWithASnapshotAndTheSnapshotReplacesTheOldState() {
        ScriptedAllocations server = new ScriptedAllocations((call, request, out) -> {
            switch (call) {
                case 0 -> {
                    serveProperly("J1", 2, request, out);
                    out.onError(Status.UNAVAILABLE.withDescription("extender restarting").asRuntimeException());
                }
                case 1 -> {
                    out.onNext(started("J2", 10));
                    out.onNext(event(3)); // J2's event 3 is not J1's event 3
                }
                default -> {
                    out.onNext(started("J2", 10));
                    out.onNext(snapshot(10));
                    out.onNext(event(11));
                }
            }
        });
        AllocationStreamClient client = client(serve(server), listener);

        await().atMost(WAIT).until(() -> listener.last() == 11);

        assertThat(listener.eventSequences()).containsExactly(1L, 2L, 11L);
        assertThat(listener.snapshots()).extracting(AllocationSnapshot::sequence).containsExactly(10L);
        assertThat(server.requests()).extracting(WatchRequest::getResumeAfter, WatchRequest::getJournalId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(0L, ""), org.assertj.core.groups.Tuple.tuple(2L, "J1"),
                        org.assertj.core.groups.Tuple.tuple(2L, "J1"));
        assertThat(client.journalId()).isEqualTo("J2");
        assertThat(client.protocolErrors()).isEqualTo(1);
    }

    @Test
    void anExtenderThatRestartedWithMoreEventsThanTheCursorResynchronisesWithASnapshot() throws Exception {
        String name = InProcessServerBuilder.generateName();
        AllocationJournal before = journal(1000);
        append(before, 30);
        ManagedGrpcServer first = GrpcServers.build(InProcessServerBuilder.forName(name), new AllocationsService(before, Leadership.ALWAYS, drain)).start();
        AllocationStreamClient client = client(name, listener);
        await().atMost(WAIT).until(() -> listener.last() == 30);

        first.close();
        AllocationJournal after = journal(1000); // a new process: counts from 1 over another history
        append(after, 100);
        cleanup.register(GrpcServers.build(InProcessServerBuilder.forName(name), new AllocationsService(after, Leadership.ALWAYS, drain)).start());

        await().atMost(WAIT).until(() -> client.journalId().equals(after.id()) && listener.last() == 100);
        assertThat(listener.snapshots()).extracting(AllocationSnapshot::sequence).containsExactly(100L);
        assertThat(listener.folded()).isEqualTo(after.snapshot());
        assertThat(listener.violations()).isEmpty();
        assertThat(client.reconnectCount()).isPositive();
    }

    @Test
    void aListenerThatThrowsGetsTheSameEventAgainAfterTheReconnect() {
        AllocationJournal journal = journal(1000);
        append(journal, 5);
        String name = serve(new AllocationsService(journal, Leadership.ALWAYS, drain));
        AtomicBoolean thrown = new AtomicBoolean();
        AllocationListener flaky = new AllocationListener() {
            @Override
            public void onSnapshot(AllocationSnapshot snapshot) {
                listener.onSnapshot(snapshot);
            }

            @Override
            public void onEvent(SequencedEvent event) {
                if (event.sequence() == 3 && thrown.compareAndSet(false, true)) {
                    throw new IllegalStateException("status writer hiccup");
                }
                listener.onEvent(event);
            }
        };
        AllocationStreamClient client = client(name, flaky);

        await().atMost(WAIT).until(() -> listener.last() == 5);

        assertThat(listener.eventSequences()).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(client.protocolErrors()).isEqualTo(1);
    }

    @Test
    void keepsRetryingUntilTheExtenderComesUp() {
        String name = InProcessServerBuilder.generateName(); // nothing listens yet
        AllocationStreamClient client = client(name, listener);
        await().atMost(WAIT).until(() -> client.reconnectCount() >= 3);
        assertThat(client.isConnected()).isFalse();

        AllocationJournal journal = journal(1000);
        append(journal, 7);
        cleanup.register(GrpcServers.build(InProcessServerBuilder.forName(name), new AllocationsService(journal, Leadership.ALWAYS, drain)).start());

        await().atMost(WAIT).until(() -> listener.last() == 7);
        assertThat(client.isConnected()).isTrue();
    }

    @Test
    void followsAStandbysRedirectToTheLeaderAndFallsBackToTheConfiguredAddress() {
        AllocationJournal leaderJournal = journal(1000);
        append(leaderJournal, 20);
        // the standby redirects to <leader IP>:<leader gRPC port> from the Lease: here an in-process name of that shape
        String leaderHost = InProcessServerBuilder.generateName();
        String leaderName = serve(leaderHost + ":9090", new AllocationsService(leaderJournal, Leadership.ALWAYS, drain));
        AtomicBoolean standbyLeads = new AtomicBoolean(false);
        AtomicReference<String> leaseHolder = new AtomicReference<>("muster-0_http=8888,grpc=9090_" + leaderHost);
        AllocationJournal standbyJournal = journal(1000);
        AllocationsService standbyService = new AllocationsService(standbyJournal,
                Leadership.of(new LeaderIdentity("muster-1", "standby", 8888, 9090), standbyLeads::get, () -> Optional.of(leaseHolder.get())), drain);
        String standbyName = serve(standbyService);

        AllocationStreamClient client = client(standbyName, listener);

        await().atMost(WAIT).until(() -> listener.last() == 20);
        assertThat(client.currentTarget()).isEqualTo(leaderName);
        assertThat(client.journalId()).isEqualTo(leaderJournal.id());

        // The leader goes away; the standby takes over (with its own journal) at the configured address.
        leaseHolder.set("");
        append(standbyJournal, 8);
        standbyLeads.set(true);
        shutdownServer(leaderName);

        await().atMost(WAIT).until(() -> client.journalId().equals(standbyJournal.id()) && listener.last() == 8);
        assertThat(client.currentTarget()).isEqualTo(standbyName);
        assertThat(listener.snapshots()).extracting(AllocationSnapshot::sequence).containsExactly(8L);
        assertThat(listener.folded()).isEqualTo(standbyJournal.snapshot());
        assertThat(listener.violations()).isEmpty();
    }

    @Test
    void concurrentAppendersStillYieldOneContiguousStream() throws Exception {
        AllocationJournal journal = journal(1 << 16);
        String name = serve(new AllocationsService(journal, Leadership.ALWAYS, drain, 8));
        AllocationStreamClient client = client(name, listener);
        ExecutorService appenders = cleanup.register(Executors.newFixedThreadPool(4));
        List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            long seed = t;
            done.add(appenders.submit(() -> {
                RandomEvents source = new RandomEvents(seed);
                for (int i = 0; i < 5_000; i++) {
                    journal.append(source.next());
                }
            }));
        }
        for (var f : done) {
            f.get(); // rethrows an appender's failure
        }

        await().atMost(WAIT).until(() -> listener.last() == 20_000);

        assertThat(listener.eventSequences()).containsExactlyElementsOf(LongStream.rangeClosed(1, 20_000).boxed().toList());
        assertThat(listener.violations()).isEmpty();
        assertThat(listener.folded()).isEqualTo(journal.snapshot());
        assertThat(client.protocolErrors()).isZero();
    }

    @Test
    void stopCancelsTheCallAndDeliversNothingMore() throws Exception {
        AllocationJournal journal = journal(1000);
        AllocationsService service = new AllocationsService(journal, Leadership.ALWAYS, drain);
        String name = serve(service);
        append(journal, 3);
        AllocationStreamClient client = client(name, listener);
        await().atMost(WAIT).until(() -> listener.last() == 3);

        client.close();

        await().atMost(WAIT).until(() -> service.subscribers().isEmpty());
        append(journal, 3);
        assertThat(listener.last()).isEqualTo(3);
        assertThat(client.isConnected()).isFalse();
    }

    // ---- fixtures ------------------------------------------------------------------------------

    private final java.util.Map<String, ManagedGrpcServer> servers = new java.util.HashMap<>();

    private String serve(BindableService service) {
        return serve(InProcessServerBuilder.generateName(), service);
    }

    private String serve(String name, BindableService service) {
        servers.put(name, cleanup.register(GrpcServers.build(InProcessServerBuilder.forName(name), service).start()));
        return name;
    }

    private void shutdownServer(String name) {
        servers.get(name).server().shutdownNow();
    }

    private AllocationStreamClient client(String target, AllocationListener l) {
        AllocationStreamClient client = cleanup.register(new AllocationStreamClient(target, t -> InProcessChannelBuilder.forName(t).build(), l, FAST));
        client.start();
        return client;
    }

    static AllocationJournal journal(int window) {
        return new AllocationJournal(window, java.time.InstantSource.system());
    }

    private static final RandomEvents EVENTS = new RandomEvents(7);

    static void append(AllocationJournal journal, int n) {
        synchronized (EVENTS) {
            for (int i = 0; i < n; i++) {
                journal.append(EVENTS.next());
            }
        }
    }
}
