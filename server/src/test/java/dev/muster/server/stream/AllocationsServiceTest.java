package dev.muster.server.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.rpc.GrpcCleanup;
import dev.muster.common.rpc.GrpcServers;
import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.common.leader.LeaderIdentity;
import dev.muster.server.leader.Leadership;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.proto.v1.AllocationsGrpc;
import dev.muster.proto.v1.WatchRequest;
import dev.muster.proto.v1.WatchResponse;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Watch wire protocol, served in-process from a journal with a window of {@value #WINDOW}. */
class AllocationsServiceTest {
    private static final int WINDOW = 100;
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final GrpcCleanup cleanup = new GrpcCleanup();
    private final AllocationJournal journal = new AllocationJournal(WINDOW, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(1_700_000_000_000L)));
    private final RandomEvents events = new RandomEvents(42);
    private final IndependentFold fold = new IndependentFold();
    private final AtomicBoolean leader = new AtomicBoolean(true);
    private final AtomicReference<String> holder = new AtomicReference<>("");
    private AllocationsService service;
    private AllocationsGrpc.AllocationsStub stub;

    @BeforeEach
    void start() {
        service = new AllocationsService(journal, Leadership.of(new LeaderIdentity("muster-1", "10.0.0.1", 8888, 9090), leader::get,
                        () -> Optional.of(holder.get())),
                cleanup.register(Executors.newFixedThreadPool(2)), 16);
        String name = InProcessServerBuilder.generateName();
        cleanup.register(GrpcServers.build(InProcessServerBuilder.forName(name), service).start());
        ManagedChannel channel = cleanup.register(InProcessChannelBuilder.forName(name).build());
        stub = AllocationsGrpc.newStub(channel);
    }

    @AfterEach
    void tearDown() throws Exception {
        cleanup.close();
    }

    @Test
    void aFreshWatcherGetsStartedThenEveryEventInOrderThenNewOnes() {
        append(50);

        WatchRecorder watch = watch(0, "");
        await().atMost(WAIT).until(() -> watch.count() == 51);
        append(10);
        await().atMost(WAIT).until(() -> watch.count() == 61);

        List<WatchResponse> got = watch.messages();
        assertThat(got.getFirst().getStarted().getJournalId()).isEqualTo(journal.id());
        assertThat(got.getFirst().getStarted().getLastSequence()).isEqualTo(50);
        assertThat(eventSequences(got)).containsExactlyElementsOf(LongStream.rangeClosed(1, 60).boxed().toList());
        assertThat(got).noneMatch(WatchResponse::hasSnapshot);
    }

    @Test
    void resumingAfterNContinuesAtNPlusOne() {
        append(50);

        WatchRecorder watch = watch(20, journal.id());
        await().atMost(WAIT).until(() -> watch.count() == 31);

        assertThat(watch.messages().getFirst().hasStarted()).isTrue();
        assertThat(eventSequences(watch.messages())).containsExactlyElementsOf(LongStream.rangeClosed(21, 50).boxed().toList());
    }

    @Test
    void resumingOlderThanTheWindowStartsWithASnapshotOfEverythingThenDeltas() {
        append(250);

        WatchRecorder watch = watch(10, journal.id());
        await().atMost(WAIT).until(() -> watch.count() == 2);
        append(5);
        await().atMost(WAIT).until(() -> watch.count() == 7);

        List<WatchResponse> got = watch.messages();
        assertThat(got.get(1).hasSnapshot()).as("the second message is marked as a snapshot").isTrue();
        AllocationSnapshot snapshot = ProtoConverters.fromProto(got.get(1).getSnapshot());
        assertThat(snapshot.sequence()).isEqualTo(250);
        assertThat(eventSequences(got)).containsExactly(251L, 252L, 253L, 254L, 255L);
        IndependentFold upTo250 = new IndependentFold();
        RandomEvents replay = new RandomEvents(42);
        for (int i = 0; i < 250; i++) {
            upTo250.apply(replay.next());
        }
        assertThat(IndependentFold.totalsOf(snapshot)).isEqualTo(upTo250.totals()).isNotEmpty();
    }

    @Test
    void aResumePointFromTheFutureGetsASnapshot() {
        append(30);

        WatchRecorder watch = watch(500, journal.id());
        await().atMost(WAIT).until(() -> watch.count() == 2);

        assertThat(watch.messages().get(1).getSnapshot().getSequence()).isEqualTo(30);
        assertThat(IndependentFold.totalsOf(ProtoConverters.fromProto(watch.messages().get(1).getSnapshot()))).isEqualTo(fold.totals());
    }

    @Test
    void aCursorFromAnotherJournalGetsASnapshotEvenInsideTheWindow() {
        append(60); // the extender restarted (or leadership moved) and already counted past the old cursor

        WatchRecorder watch = watch(20, "journal-of-the-previous-leader");
        await().atMost(WAIT).until(() -> watch.count() == 2);
        append(1);
        await().atMost(WAIT).until(() -> watch.count() == 3);

        assertThat(watch.messages().get(1).getSnapshot().getSequence()).isEqualTo(60);
        assertThat(eventSequences(watch.messages())).containsExactly(61L);
    }

    @Test
    void aFreshWatcherAfterTheWindowMovedOnGetsASnapshot() {
        append(WINDOW + 1);

        WatchRecorder watch = watch(0, "");
        await().atMost(WAIT).until(() -> watch.count() == 2);

        assertThat(watch.messages().get(1).getSnapshot().getSequence()).isEqualTo(WINDOW + 1);
    }

    @Test
    void aNegativeResumePointIsInvalidArgument() throws Exception {
        WatchRecorder watch = watch(-1, "");

        Status status = watch.closed.get(30, TimeUnit.SECONDS);
        assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(status.getDescription()).contains("resume_after must not be negative");
    }

    @ParameterizedTest(name = "Lease holder \"{0}\" → leader address \"{1}\"")
    @CsvSource(delimiter = '|', value = {"muster-0_http=8888,grpc=19090_10.0.0.7 | 10.0.0.7:19090", "muster-0_10.0.0.7 | 10.0.0.7:9090", "'' | ''"})
    void aStandbyAnswersUnavailableNotTheLeaderWithTheLeaderAddress(String holderIdentity, String address) throws Exception {
        leader.set(false);
        holder.set(holderIdentity);

        WatchRecorder watch = watch(0, "");

        Status status = watch.closed.get(30, TimeUnit.SECONDS);
        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(status.getDescription()).startsWith("not the leader");
        assertThat(watch.trailers().get(LeaderRedirect.LEADER_ADDRESS)).isEqualTo(address);
        assertThat(watch.count()).isZero();
    }

    @Test
    void aStandbyWhoseLeaseNamesItselfRedirectsNowhereAndSaysWhy() throws Exception {
        leader.set(false);
        holder.set("muster-1_http=8888,grpc=9090_10.0.0.1"); // this service's own identity

        WatchRecorder watch = watch(0, "");

        Status status = watch.closed.get(30, TimeUnit.SECONDS);
        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(status.getDescription()).startsWith("not the leader (the Lease still names this replica");
        assertThat(watch.trailers().get(LeaderRedirect.LEADER_ADDRESS)).isEmpty();
    }

    @Test
    void losingLeadershipEndsOpenStreamsWithTheRedirect() throws Exception {
        append(3);
        WatchRecorder watch = watch(0, "");
        await().atMost(WAIT).until(() -> watch.count() == 4);

        leader.set(false);
        holder.set("muster-0_http=8888,grpc=9090_10.0.0.8");
        service.servingChanged();

        Status status = watch.closed.get(30, TimeUnit.SECONDS);
        assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
        assertThat(watch.trailers().get(LeaderRedirect.LEADER_ADDRESS)).isEqualTo("10.0.0.8:9090");
        await().atMost(WAIT).until(() -> service.subscribers().isEmpty());
    }

    @Test
    void aCancelledWatchLeavesNothingBehind() {
        append(3);
        Context.CancellableContext context = Context.current().withCancellation();
        WatchRecorder watch = new WatchRecorder();
        context.run(() -> stub.watch(WatchRequest.newBuilder().build(), watch));
        await().atMost(WAIT).until(() -> watch.count() == 4);
        assertThat(service.subscribers()).hasSize(1).first().satisfies(s -> assertThat(s.cursor()).isEqualTo(3));

        context.cancel(null);

        await().atMost(WAIT).until(() -> service.subscribers().isEmpty()); // removed, its journal wake-up with it
    }

    private WatchRecorder watch(long resumeAfter, String journalId) {
        WatchRecorder recorder = new WatchRecorder();
        stub.watch(WatchRequest.newBuilder().setResumeAfter(resumeAfter).setJournalId(journalId).build(), recorder);
        return recorder;
    }

    private void append(int n) {
        for (int i = 0; i < n; i++) {
            var e = events.next();
            fold.apply(e);
            journal.append(e);
        }
    }

    private static List<Long> eventSequences(List<WatchResponse> messages) {
        return messages.stream().filter(WatchResponse::hasEvent).map(m -> m.getEvent().getSequence()).toList();
    }
}
