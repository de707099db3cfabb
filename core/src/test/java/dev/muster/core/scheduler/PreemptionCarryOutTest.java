package dev.muster.core.scheduler;

import static dev.muster.core.scheduler.PreemptionTest.arrives;
import static dev.muster.core.scheduler.PreemptionTest.decisions;
import static dev.muster.core.scheduler.PreemptionTest.running;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a preemption decision is carried out and what it counts: budgets spent across the whole decision, a full queue
 * making room by priority, victims leaving counted gone, reclaim keeping a victim queue's share of what the preemptor
 * lacks, no decision before the first sync, and evictions stopping when their preemptor gives up.
 */
class PreemptionCarryOutTest {
    private static final EvictionOutcome.RefusedByBudget REFUSED =
            new EvictionOutcome.RefusedByBudget("Cannot evict pod as it would violate the pod's disruption budget.");
    private final RecordingEvictor evictor = new RecordingEvictor();

    private SchedulerHarness cluster(int nodes, DisruptionBudgets budgets) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor, budgets);
        for (int i = 0; i < nodes; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        return h;
    }

    private static Pod single(SchedulerHarness h, String name, String node) {
        return h.seen(pod(name).requests("2", "1Gi").on(node).build());
    }

    private long asks(String name) {
        return Collections.frequency(evictor.asked(), name);
    }

    @Test
    void aBudgetIsSpentAcrossTheWholeDecisionNotPerUnit() {
        // one budget allows one disruption among web-0..3: taking two of them for one gang would be refused halfway
        DisruptionBudgets oneAtATime = pods -> pods.stream().filter(p -> p.name().startsWith("web-")).count() > 1 ? "default/web" : null;
        SchedulerHarness h = cluster(3, oneAtATime);
        single(h, "web-0", "n0");
        single(h, "web-1", "n0");
        single(h, "web-2", "n1");
        single(h, "web-3", "n1");
        running(h, "low", "default", 2, 0, "n2", "n2");
        arrives(h, "big", "default", 2, 1000);

        h.scheduler.expireDue();

        // single pods go first, but two of web's would exceed its budget together: the gang takes low instead, whole
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-0", "low-1");
        assertThat(evictor.checked()).containsExactlyInAnyOrder("low-0", "low-1");
        assertThat(h.scheduler.gang(new GangKey("default", "big")).slotNodes()).containsOnly("n2");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aHighGangInAQueueAtItsCapabilityTakesRoomFromLowerGangsOfThatQueue() {
        SchedulerHarness h = cluster(4, DisruptionBudgets.NONE);
        h.scheduler.upsertQueue(queue("capped", res("8", "64Gi")));
        running(h, "low-a", "capped", 2, 0, "n0", "n0");
        h.clock.advance(Duration.ofSeconds(10));
        running(h, "low-b", "capped", 2, 0, "n1", "n1");
        List<Pod> big = arrives(h, "big", "capped", 2, 1000); // n2 and n3 are free, but the queue is full
        GangKey key = new GangKey("default", "big");
        assertThat(h.scheduler.preemptionAdvice(key)).isInstanceOf(PreemptionAdvice.Preempt.class);

        h.scheduler.expireDue();

        // the verdict counts the victim gone: the most recently started lower gang of the queue makes its quota room
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-b-0", "low-b-1");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.RESERVED);
        assertThat(h.totals().allocatedByQueue().get("capped").cpuMillis()).isEqualTo(8_000); // low-a + big's reservation
        assertThat(big).hasSize(2);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void victimsLeavingAreNoLongerHeldSoReclaimsInConsecutiveTicksKeepTheVictimQueueAtItsShare() {
        SchedulerHarness h = cluster(4, DisruptionBudgets.NONE);
        List<Pod> waiting = queueAHoldsTheClusterAcrossNodePairs(h, 4);
        // ticks in a row while the victims terminate: each decision sees the earlier ones' victims gone already
        for (int round = 0; round < 8; round++) {
            h.scheduler.expireDue();
            assertThat(h.scheduler.stats().queueShares().get("a").held().cpuMillis()).as("a's share is 5.33 cpu")
                    .isGreaterThanOrEqualTo(16_000 / 3);
            h.clock.advance(Duration.ofSeconds(1));
        }
        // the victims go; b and c run what they reclaimed and what the victims freed beyond it
        victimsGo(h);
        for (int round = 0; round < 8; round++) {
            h.scheduler.expireDue();
            for (Pod p : waiting) {
                if (h.scheduler.ledger().pods().stream().noneMatch(r -> r.pod().uid().equals(p.uid()))) {
                    h.schedule(p);
                }
            }
            h.clock.advance(Duration.ofSeconds(6));
        }
        assertThat(evictor.asked()).hasSize(4); // two of a's gangs
        assertThat(h.totals().allocatedByQueue().get("a").cpuMillis()).isEqualTo(8_000);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void roomAVictimFreesBeyondItsPreemptorsNeedIsWaitedForNotTakenAgainFromAnotherQueue() {
        SchedulerHarness h = cluster(4, DisruptionBudgets.NONE);
        List<Pod> waiting = queueAHoldsTheClusterAcrossNodePairs(h, 2); // every gang of a taken frees twice what its preemptor needs

        h.scheduler.expireDue();
        assertThat(decisions(h)).extracting(d -> d.preemptor().name()).containsExactly("b0");
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.expireDue();

        // c0, first in line (its queue holds nothing), fits on the 2 cpu a3 frees beyond b0's reservation: it waits for
        // it. c1, after it in the same tick, does not count on that room as well: it takes a2
        assertThat(decisions(h)).extracting(d -> d.preemptor().name()).containsExactly("b0", "c1");
        assertThat(h.scheduler.gang(new GangKey("default", "c0")).state()).isNotEqualTo(GangState.RESERVED);
        for (int round = 0; round < 4; round++) {
            h.clock.advance(Duration.ofSeconds(1));
            h.scheduler.expireDue();
        }
        assertThat(decisions(h)).as("no third decision: b1 fits on what a2 frees beyond c1's reservation").hasSize(2);

        // the victims go: all four gangs run, on the room of two of a's gangs
        victimsGo(h);
        for (int round = 0; round < 4; round++) {
            h.scheduler.expireDue();
            for (Pod p : waiting) {
                if (!bound(h, p)) {
                    h.schedule(p);
                }
            }
            h.clock.advance(Duration.ofSeconds(1));
        }
        assertThat(waiting).allMatch(p -> bound(h, p));
        assertThat(evictor.asked()).containsExactlyInAnyOrder("a3-0", "a3-1", "a2-0", "a2-1");
        assertThat(h.scheduler.preemptionStats().reclaimDecisions()).isEqualTo(2);
        assertThat(h.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(h.totals().allocatedByQueue().get("a").cpuMillis()).isEqualTo(8_000);
        assertThat(h.invariantViolations()).isEmpty();
    }

    /**
     * Queues a, b and c; a holds the whole cluster with 4 gangs of two 2-cpu pods, each across two nodes (taking one
     * frees 4 cpu); b and c each get {@code gangsEach} gangs of one 2-cpu pod, which wait. Returns the waiting pods.
     */
    private List<Pod> queueAHoldsTheClusterAcrossNodePairs(SchedulerHarness h, int gangsEach) {
        for (String q : List.of("a", "b", "c")) {
            h.scheduler.upsertQueue(queue(q));
        }
        for (int g = 0; g < 4; g++) {
            running(h, "a" + g, "a", 2, 0, "n" + g, "n" + ((g + 1) % 4));
            h.clock.advance(Duration.ofSeconds(1));
        }
        List<Pod> waiting = new java.util.ArrayList<>();
        for (int g = 0; g < gangsEach; g++) {
            waiting.addAll(arrives(h, "b" + g, "b", 1, 0));
            waiting.addAll(arrives(h, "c" + g, "c", 1, 0));
        }
        return waiting;
    }

    /** Every pod Muster asked to evict is gone. */
    private void victimsGo(SchedulerHarness h) {
        for (var r : h.scheduler.ledger().pods()) {
            if (evictor.asked().contains(r.pod().name())) {
                h.scheduler.deletePod(r.pod().uid());
            }
        }
    }

    private static boolean bound(SchedulerHarness h, Pod p) {
        return h.scheduler.ledger().pods().stream().anyMatch(r -> r.pod().uid().equals(p.uid()));
    }

    @Test
    void nothingIsDecidedBeforeTheFirstFullSync() {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor, DisruptionBudgets.NONE);
        h.nodes(node("n0", "4", "16Gi"));
        h.scheduler.upsertQueue(queue("default"));
        running(h, "low", "default", 2, 0, "n0", "n0");
        arrives(h, "big", "default", 2, 1000);

        h.scheduler.expireDue();
        assertThat(evictor.checked()).isEmpty();
        assertThat(evictor.asked()).isEmpty();

        h.scheduler.markSynced();
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-0", "low-1");
    }

    @Test
    void whenThePreemptorGivesUpItsEvictionsStopAndAHalfEvictedUnitIsFinished() {
        SchedulerHarness h = cluster(2, DisruptionBudgets.NONE);
        h.scheduler.upsertPodGroup(podGroup("default", "low", 2, "default"));
        h.scheduler.upsertPod(pod("low-0").gang("low").requests("2", "1Gi").on("n0").build());
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.upsertPod(pod("low-1").gang("low").requests("2", "1Gi").on("n0").build());
        single(h, "solo-0", "n1");
        single(h, "solo-1", "n1");
        // every dry run passes, then the cluster refuses all but low-1 for good
        for (String name : List.of("low-0", "solo-0", "solo-1")) {
            evictor.answerCheck(name, new EvictionOutcome.Evicted()).answer(name, REFUSED);
        }
        arrives(h, "big", "default", 4, 1000);
        GangKey key = new GangKey("default", "big");

        h.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-1", "low-0", "solo-0", "solo-1");
        // retried with backoff while the reservation lasts (the victims' grace 30 s + margin 30 s + deadline 60 s)
        for (int s = 0; s < 121 && h.scheduler.gang(key).slotNodes().size() > 0; s++) {
            h.clock.advance(Duration.ofSeconds(1));
            h.scheduler.expireDue();
        }
        assertThat(h.scheduler.gang(key).slotNodes()).isEmpty();
        long soloAsks = asks("solo-0");
        assertThat(soloAsks).isEqualTo(5); // at 0, 5, 15, 35 and 75 s
        assertThat(h.scheduler.preemptionStats().wastedEvictions()).isEqualTo(1); // low-1 went for nothing
        // no later decision may take them again here: their dry runs are refused from now on
        for (String name : List.of("low-0", "solo-0", "solo-1")) {
            evictor.answerCheck(name, REFUSED);
        }
        for (int s = 0; s < 600; s++) {
            h.clock.advance(Duration.ofSeconds(1));
            h.scheduler.expireDue();
        }
        // the single pods' evictions stopped with the decision; low's last pod was tried until it gave up too
        assertThat(asks("solo-0")).isEqualTo(soloAsks);
        assertThat(asks("solo-1")).isEqualTo(soloAsks);
        assertThat(asks("low-0")).isEqualTo(6);
        assertThat(decisions(h)).hasSize(1);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void reclaimNeverTakesAResourceTheGangLacksFromAQueueBelowItsShareOfIt() {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor, DisruptionBudgets.NONE);
        for (int i = 0; i < 4; i++) {
            h.nodes(node("n" + i, "8", "32Gi", "nvidia.com/gpu", "2"));
        }
        for (String q : List.of("a", "b")) {
            h.scheduler.upsertQueue(queue(q));
        }
        h.scheduler.upsertQueue(new dev.muster.core.model.QueueSpec("c", dev.muster.core.model.QueueState.OPEN, 1, null,
                dev.muster.core.resources.Resources.ZERO, dev.muster.core.resources.Resources.ZERO, false));
        h.scheduler.markSynced();
        // a holds 2 of the 8 GPUs and most of the cpu (above its share by cpu, below it by GPU); c, not reclaimable, the rest
        gangOfOne(h, "a-gpu0", "a", "n0", "1", "nvidia.com/gpu", "1");
        gangOfOne(h, "a-gpu1", "a", "n0", "1", "nvidia.com/gpu", "1");
        for (int i = 0; i < 4; i++) {
            gangOfOne(h, "a-cpu" + i, "a", "n" + i, "6");
        }
        for (int i = 1; i < 4; i++) {
            gangOfOne(h, "c-gpu" + i + "a", "c", "n" + i, "1", "nvidia.com/gpu", "1");
            gangOfOne(h, "c-gpu" + i + "b", "c", "n" + i, "1", "nvidia.com/gpu", "1");
        }
        // a wants one GPU more, b two: a's GPU share is 3, b's 2
        waitingGangOfOne(h, "a-more", "a");
        waitingGangOfOne(h, "b0", "b");
        waitingGangOfOne(h, "b1", "b");
        h.ticks(3, Duration.ofSeconds(6));
        // by its dominant share (cpu) a is above its share, but it holds 2 of the 3 GPUs it is owed: b reclaims none
        assertThat(evictor.asked()).isEmpty();
        assertThat(h.whyCannotRun("b0")).contains("no queue above its fair share has room to give back");
    }

    private static void waitingGangOfOne(SchedulerHarness h, String name, String queue) {
        h.scheduler.upsertPodGroup(podGroup("default", name, 1, queue));
        h.scheduler.filter(h.seen(pod(name + "-0").gang(name).requests("1", "1Gi", "nvidia.com/gpu", "1").build()), List.of());
    }

    private static void gangOfOne(SchedulerHarness h, String name, String queue, String node, String cpu, String... extended) {
        h.scheduler.upsertPodGroup(podGroup("default", name, 1, queue));
        h.scheduler.upsertPod(pod(name + "-0").gang(name).requests(cpu, "1Gi", extended).on(node).build());
    }
}
