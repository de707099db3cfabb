package dev.muster.server.grpc;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.leader.LeaderIdentity;
import dev.muster.common.rpc.LeaderRedirect;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.testing.FakeClock;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.core.testing.RecordingEvictor;
import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.PreemptionKind;
import dev.muster.proto.v1.PreemptionVictim;
import dev.muster.proto.v1.VictimUnit;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import dev.muster.proto.v1.WhatWouldItTakeResponse.Verdict;
import dev.muster.server.http.ExtenderMetrics;
import dev.muster.server.leader.Leadership;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.prometheus.client.CollectorRegistry;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The preemption dry run over gRPC (in-process, direct executor): what it answers, that it changes nothing, and who answers. */
class WhatWouldItTakeTest {
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private final RecordingEvictor evictor = new RecordingEvictor();
    private AllocationJournal journal;
    private GangScheduler scheduler;
    private Server server;
    private ManagedChannel channel;
    private ExtenderGrpc.ExtenderBlockingStub stub;

    /**
     * Two nodes of 4 cpu: gang low (4 × 2 cpu, minMember 4, priority 0) fills them; gang big (2 × 2 cpu, priority 1000)
     * waits; gang huge (5 × 2 cpu, priority 1000) cannot fit even with low gone.
     */
    @BeforeEach
    void setUp() throws Exception {
        journal = new AllocationJournal(1024, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
        scheduler = new GangScheduler(SchedulerConfig.DEFAULT, new RecordingBinder(), evictor, DisruptionBudgets.NONE, journal, new FakeClock());
        scheduler.upsertNode(node("n0", "4", "16Gi"));
        scheduler.upsertNode(node("n1", "4", "16Gi"));
        scheduler.upsertQueue(queue("default"));
        scheduler.upsertPodGroup(podGroup("ml", "low", 4, "default"));
        String[] on = {"n0", "n0", "n1", "n1"};
        for (int i = 0; i < 4; i++) {
            scheduler.upsertPod(pod("low-" + i).ns("ml").gang("low").requests("2", "1Gi").priority(0).on(on[i]).build());
        }
        waiting("big", 2);
        waiting("huge", 5);
        scheduler.markSynced();
        String name = InProcessServerBuilder.generateName();
        Leadership gate = Leadership.of(new LeaderIdentity("muster-1", "10.0.0.1", 8888, 9090), leading::get,
                () -> Optional.of("muster-0_http=8888,grpc=9090_10.0.0.9"));
        server = InProcessServerBuilder.forName(name).directExecutor()
                .addService(new ExtenderGrpcService(scheduler, gate, new ExtenderMetrics(new CollectorRegistry(), scheduler, journal)))
                .build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        stub = ExtenderGrpc.newBlockingStub(channel);
    }

    private void waiting(String gang, int members) {
        scheduler.upsertPodGroup(podGroup("ml", gang, members, "default"));
        for (int i = 0; i < members; i++) {
            scheduler.upsertPod(pod(gang + "-" + i).ns("ml").gang(gang).requests("2", "1Gi").priority(1000).build());
        }
    }

    @AfterEach
    void tearDown() throws Exception {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private WhatWouldItTakeResponse ask(String gang) {
        return stub.whatWouldItTake(WhatWouldItTakeRequest.newBuilder().setGang(GangRef.newBuilder().setNamespace("ml").setName(gang)).build());
    }

    @Test
    void aWaitingGangOfHigherPriorityWouldTakeTheLowerGangWholeAndNothingChanges() {
        long sequence = journal.lastSequence();
        var ledger = scheduler.ledger();

        WhatWouldItTakeResponse r = ask("big");

        assertThat(r.getVerdict()).isEqualTo(Verdict.VERDICT_PREEMPT);
        assertThat(r.getKind()).isEqualTo(PreemptionKind.PREEMPTION_KIND_PRIORITY);
        assertThat(r.getPods()).isEqualTo(2);
        VictimUnit unit = r.getVictims(0);
        assertThat(r.getVictimsList()).hasSize(1);
        assertThat(unit.getGang()).isEqualTo(GangRef.newBuilder().setNamespace("ml").setName("low").build());
        assertThat(unit.getQueue()).isEqualTo("default");
        assertThat(unit.getSurplusOnly()).as("minMember 4 of 4: the whole gang goes").isFalse();
        assertThat(unit.getPodsList()).extracting(v -> v.getPod().getPod().getName()).containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3");
        PreemptionVictim first = unit.getPodsList().stream().filter(v -> v.getPod().getPod().getName().equals("low-0")).findFirst().orElseThrow();
        assertThat(first.getPod().getNode()).isEqualTo("n0");
        assertThat(first.getPod().getResources().getAmountsMap()).containsEntry("cpu", 2000L);
        assertThat(r.getNodes()).isBetween(1, 2);

        assertThat(evictor.asked()).as("a dry run evicts nothing").isEmpty();
        assertThat(journal.lastSequence()).as("and tells the stream nothing").isEqualTo(sequence);
        assertThat(scheduler.ledger()).as("and reserves nothing").isEqualTo(ledger);
        assertThat(ask("big")).as("asked again: the same answer").isEqualTo(r);
    }

    @Test
    void aGangThatRunsNeedsNothingAndOneThatCannotFitSaysWhy() {
        WhatWouldItTakeResponse runs = ask("low");
        assertThat(runs.getVerdict()).isEqualTo(Verdict.VERDICT_NONE_NEEDED);
        assertThat(runs.getWhy()).isEqualTo("gang ml/low runs");
        assertThat(runs.getVictimsList()).isEmpty();

        WhatWouldItTakeResponse huge = ask("huge");
        assertThat(huge.getVerdict()).isEqualTo(Verdict.VERDICT_CANNOT_RUN);
        assertThat(huge.getWhy()).startsWith("gang ml/huge: ").contains("would not fit");
    }

    @Test
    void anUnknownGangIsNotFoundAndAMissingOneIsABadRequest() {
        assertThatThrownBy(() -> ask("nope")).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
            assertThat(e.getStatus().getDescription()).contains("ml/nope");
        });
        assertThatThrownBy(() -> stub.whatWouldItTake(WhatWouldItTakeRequest.getDefaultInstance()))
                .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
                    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
                    assertThat(e.getStatus().getDescription()).contains("gang.namespace and gang.name");
                });
    }

    @Test
    void aStandbyPointsToTheLeaderInsteadOfAnswering() {
        leading.set(false);
        assertThatThrownBy(() -> ask("big")).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
            assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
            assertThat(LeaderRedirect.leaderAddress(e.getStatus(), e.getTrailers())).hasValue("10.0.0.9:9090");
        });
    }
}
