package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroupGoingWhole;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Gang-aware preemption and queue reclaim, through the scheduler's verbs and tick as kube-scheduler and the cluster
 * drive them: who is chosen, that nothing is evicted for nothing, that victims are whole units, that the room is the
 * preemptor's, and what the dry run says.
 */
class PreemptionTest {
    private final RecordingEvictor evictor = new RecordingEvictor();

    /** {@code nodes} nodes of 4 cpu / 16Gi, the default queue, preemption on. */
    private SchedulerHarness cluster(int nodes, DisruptionBudgets budgets, PreemptionSettings settings) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(settings), evictor, budgets);
        for (int i = 0; i < nodes; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        return h;
    }

    private SchedulerHarness cluster(int nodes) {
        return cluster(nodes, DisruptionBudgets.NONE, PreemptionSettings.DEFAULT);
    }

    /** A running gang: its PodGroup and {@code perNode.length} members of 2 cpu, bound to those nodes. */
    static List<Pod> running(SchedulerHarness h, String name, String queue, int minMember, int priority, String... perNode) {
        return running(h, podGroup("default", name, minMember, queue), priority, perNode);
    }

    static List<Pod> running(SchedulerHarness h, PodGroupSpec pg, int priority, String... perNode) {
        h.scheduler.upsertPodGroup(pg);
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < perNode.length; i++) {
            Pod p = pod(pg.key().name() + "-" + i).gang(pg.key().name()).requests("2", "1Gi").priority(priority).on(perNode[i]).build();
            h.scheduler.upsertPod(p);
            out.add(p);
        }
        return out;
    }

    /** A waiting gang of {@code n} members of 2 cpu: all exist, and kube-scheduler found no node for any of them. */
    static List<Pod> arrives(SchedulerHarness h, String name, String queue, int n, int priority) {
        h.scheduler.upsertPodGroup(podGroup("default", name, n, queue));
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pod p = pod(name + "-" + i).gang(name).requests("2", "1Gi").priority(priority).build();
            h.scheduler.upsertPod(p);
            out.add(p);
        }
        h.scheduler.filter(out.getFirst(), List.of()); // kube-scheduler's own fit found no node: Muster plans the gang
        return out;
    }

    /** A waiting gang of {@code n} members of 2 cpu that the cluster shows and kube-scheduler has not asked about. */
    private static void unasked(SchedulerHarness h, String name, int n, int priority) {
        h.scheduler.upsertPodGroup(podGroup("default", name, n, "default"));
        for (int i = 0; i < n; i++) {
            h.seen(pod(name + "-" + i).gang(name).requests("2", "1Gi").priority(priority).build());
        }
    }

    /** Four nodes of 4 cpu filled by two gangs of priority 0, low-a and, 10 s later, low-b (the more recently started). */
    private SchedulerHarness lowAThenLowBFillFourNodes() {
        SchedulerHarness h = cluster(4);
        running(h, "low-a", "default", 4, 0, "n0", "n0", "n1", "n1");
        h.clock.advance(Duration.ofSeconds(10));
        running(h, "low-b", "default", 4, 0, "n2", "n2", "n3", "n3");
        return h;
    }

    /** The cluster shows the evicted pods gone. */
    private void victimsGo(SchedulerHarness h, List<Pod> pods) {
        for (Pod p : pods) {
            if (evictor.asked().contains(p.id().name())) {
                h.scheduler.deletePod(p.uid());
            }
        }
    }

    /** kube-scheduler places every member on the nodes it finds room on (all nodes here) and binds it. */
    private static List<CompletableFuture<BindResult>> schedule(SchedulerHarness h, List<Pod> members) {
        List<CompletableFuture<BindResult>> out = new ArrayList<>();
        for (Pod m : members) {
            out.add(h.schedule(m));
        }
        return out;
    }

    private static List<String> names(List<Pod> pods) {
        return pods.stream().map(p -> p.id().name()).toList();
    }

    @Test
    void aHighPriorityGangTakesExactlyOneLowerGangAndBindsWholeOnItsRoom() {
        SchedulerHarness h = cluster(4);
        List<Pod> lowA = running(h, "low-a", "default", 4, 0, "n0", "n0", "n1", "n1");
        h.clock.advance(Duration.ofSeconds(10));
        List<Pod> lowB = running(h, "low-b", "default", 4, 0, "n2", "n2", "n3", "n3");
        List<Pod> big = arrives(h, "big", "default", 4, 1000);
        GangKey key = new GangKey("default", "big");
        assertThat(h.scheduler.gang(key).why().cause()).isEqualTo(dev.muster.core.model.Refusal.Cause.RESOURCES);

        h.scheduler.expireDue();

        // low-b started last: it goes whole (every pod checked by a dry run, then all evicted), low-a keeps running
        assertThat(evictor.asked()).containsExactlyInAnyOrderElementsOf(names(lowB));
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.RESERVED);
        assertThat(h.scheduler.gang(key).reason()).isEqualTo("preempting default/low-b (4 pods): 4 still terminating");
        assertThat(h.scheduler.gang(key).slotNodes()).containsOnly("n2", "n3");
        assertThat(h.scheduler.gang(new GangKey("default", "low-a")).state()).isEqualTo(GangState.BOUND);
        AllocationEvent.PreemptionDecided decided = decisions(h).getFirst();
        assertThat(decided.kind()).isEqualTo(PreemptionKind.PRIORITY);
        assertThat(decided.priority()).isEqualTo(1000);
        assertThat(decided.victims()).hasSize(4);
        assertThat(decided.nodes()).isEqualTo(2);
        assertThat(h.invariantViolations()).isEmpty();

        // while the victims terminate their room is the preemptor's: a single pod finds none of it
        Pod web = h.seen(pod("web").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(web, List.of("n2", "n3")).feasible()).isEmpty();
        h.scheduler.expireDue();
        assertThat(evictor.asked()).hasSize(4); // no second decision for the same gang

        victimsGo(h, lowB);
        h.scheduler.deletePod(web.uid());
        List<CompletableFuture<BindResult>> binds = schedule(h, big);
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);
        assertThat(h.binder.bound().values()).containsOnly("n2", "n3");
        assertThat(h.scheduler.preemptionStats().priorityDecisions()).isEqualTo(1);
        assertThat(h.scheduler.preemptionStats().victimsEvicted()).isEqualTo(4);
        assertThat(h.invariantViolations()).isEmpty();
        assertThat(lowA).isNotEmpty();
    }

    @Test
    void aGangKubeSchedulerNeverAskedAboutPreemptsAtTheNextTick() {
        // the cluster is full in kube-scheduler's view too: it finds no node for any member and never calls filter
        SchedulerHarness h = cluster(2);
        running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        unasked(h, "big", 2, 1000);

        h.scheduler.expireDue();

        assertThat(evictor.asked()).hasSize(4);
        assertThat(h.scheduler.gang(new GangKey("default", "big")).state()).isEqualTo(GangState.RESERVED);
    }

    @Test
    void aWaitingGangThatFitsOnFreeRoomTakesNobodysRoom() {
        SchedulerHarness h = cluster(4);
        running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        unasked(h, "big", 2, 1000);
        h.scheduler.expireDue();
        assertThat(evictor.asked()).isEmpty();
        assertThat(h.scheduler.preemptionAdvice(new GangKey("default", "big"))).isInstanceOf(PreemptionAdvice.NoneNeeded.class);
    }

    @Test
    void aGangThatWouldNotFitEvenWithEveryLowerPodGoneEvictsNothingAndSaysSo() {
        SchedulerHarness h = cluster(2);
        running(h, "low-a", "default", 2, 0, "n0", "n0");
        running(h, "low-b", "default", 2, 0, "n1", "n1");
        arrives(h, "huge", "default", 5, 1000); // 10 cpu on a cluster of 8

        h.scheduler.expireDue();

        assertThat(evictor.asked()).isEmpty();
        assertThat(h.scheduler.gang(new GangKey("default", "huge")).reason()).contains("; preempts nothing: even without every pod of lower priority");
        PreemptionAdvice advice = h.scheduler.preemptionAdvice(new GangKey("default", "huge"));
        assertThat(advice).isInstanceOf(PreemptionAdvice.CannotRun.class);
        assertThat(((PreemptionAdvice.CannotRun) advice).why())
                .contains("even without every pod of lower priority (1000) in queue default and every single pod of lower priority it would not fit")
                .contains("all the nodes its members may use, even empty, hold too little: its 5 members to place need at least 10 cpu");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void surplusMembersGoBeforeAnyWholeGangAndTheGangKeepsItsMinimum() {
        SchedulerHarness h = cluster(2);
        running(h, "elastic", "default", 2, 0, "n0", "n0", "n1", "n1"); // minMember 2, 4 running: 2 surplus
        List<Pod> small = arrives(h, "small", "default", 2, 100);

        h.scheduler.expireDue();

        assertThat(evictor.asked()).hasSize(2).allMatch(n -> n.startsWith("elastic-"));
        assertThat(h.scheduler.gang(new GangKey("default", "small")).reason()).startsWith("preempting default/elastic (2 surplus pods)");
        assertThat(small).hasSize(2);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangWhoseDisruptionModeIsAllGoesWholeOrNotAtAll() {
        SchedulerHarness h = cluster(2);
        PodGroupSpec all = podGroupGoingWhole("default", "whole", 2, "default");
        running(h, all, 0, "n0", "n0", "n1", "n1");
        arrives(h, "small", "default", 2, 100);

        h.scheduler.expireDue();

        assertThat(evictor.asked()).hasSize(4).allMatch(n -> n.startsWith("whole-"));
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aUnitABudgetProtectsIsNotChosenAndAnotherIs() {
        DisruptionBudgets budgets = pods -> pods.stream().anyMatch(p -> p.name().startsWith("low-b")) ? "default/keep-b" : null;
        SchedulerHarness h = cluster(4, budgets, PreemptionSettings.DEFAULT);
        List<Pod> lowA = running(h, "low-a", "default", 4, 0, "n0", "n0", "n1", "n1");
        h.clock.advance(Duration.ofSeconds(10));
        running(h, "low-b", "default", 4, 0, "n2", "n2", "n3", "n3"); // started last, but protected
        arrives(h, "big", "default", 4, 1000);

        h.scheduler.expireDue();

        assertThat(evictor.asked()).containsExactlyInAnyOrderElementsOf(names(lowA));
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void whenEveryCandidateIsProtectedNothingIsEvictedAndTheReasonNamesTheBudget() {
        DisruptionBudgets budgets = pods -> "default/keep-all";
        SchedulerHarness h = cluster(2, budgets, PreemptionSettings.DEFAULT);
        running(h, "low-a", "default", 2, 0, "n0", "n0");
        running(h, "low-b", "default", 2, 0, "n1", "n1");
        arrives(h, "big", "default", 2, 1000);

        h.scheduler.expireDue();

        assertThat(evictor.asked()).isEmpty();
        assertThat(((PreemptionAdvice.CannotRun) h.scheduler.preemptionAdvice(new GangKey("default", "big"))).why())
                .contains("protected by a PodDisruptionBudget: ").contains("by default/keep-all");
    }

    @Test
    void aDryRunRefusalEvictsNothingAndTheNextDecisionTakesAnotherUnit() {
        SchedulerHarness h = lowAThenLowBFillFourNodes();
        evictor.answer("low-b-2", new EvictionOutcome.RefusedByBudget("Cannot evict pod as it would violate the pod's disruption budget."));
        arrives(h, "big", "default", 4, 1000);
        GangKey key = new GangKey("default", "big");

        h.scheduler.expireDue();

        // every victim was checked by a dry run; one was refused, so none was evicted and nothing stays leaving
        assertThat(evictor.checked()).containsExactlyInAnyOrder("low-b-0", "low-b-1", "low-b-2", "low-b-3");
        assertThat(evictor.asked()).isEmpty();
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.UNSCHEDULABLE);
        assertThat(h.scheduler.gang(key).reason()).contains("preemption abandoned before any eviction, a PodDisruptionBudget would refuse"
                + " the eviction of default/low-b-2");
        assertThat(h.scheduler.gang(key).slotNodes()).isEmpty();
        assertThat(h.totals().allocatedByQueue().get("default").cpuMillis()).isEqualTo(16_000);
        assertThat(h.scheduler.preemptionStats().evictionsRefusedByBudget()).isEqualTo(1);
        assertThat(h.scheduler.preemptionStats().endedRefused()).as("the decision ended before any eviction was sent").isEqualTo(1);
        assertThat(decisions(h)).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();

        // tried again after its pause: low-b's refusal is remembered, so low-a goes, whole
        h.clock.advance(Duration.ofSeconds(6));
        h.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-a-0", "low-a-1", "low-a-2", "low-a-3");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.RESERVED);
        assertThat(h.scheduler.preemptionStats().priorityDecisions()).as("both decisions count, the one that evicted nothing too").isEqualTo(2);
        assertThat(h.scheduler.preemptionStats().endedRefused()).isEqualTo(1);
        assertThat(h.scheduler.preemptionStats().endedOvertaken()).isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aDecisionWhosePreemptorGoesBeforeTheDryRunsAnswerEndsWithNothingEvictedAndIsCountedSo() {
        SchedulerHarness h = lowAThenLowBFillFourNodes();
        evictor.holdChecks(); // the API server is slow to answer the dry runs
        List<Pod> big = arrives(h, "big", "default", 4, 1000);
        GangKey key = new GangKey("default", "big");

        h.scheduler.expireDue();
        assertThat(evictor.checked()).hasSize(4);
        assertThat(h.scheduler.preemptionStats().priorityDecisions()).isEqualTo(1);

        // the job is deleted while its dry runs are on their way: the decision ends at the next tick
        for (Pod p : big) {
            h.scheduler.deletePod(p.uid());
        }
        h.scheduler.expireDue();
        evictor.releaseChecks();
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.expireDue();

        assertThat(evictor.asked()).as("nothing evicted for a gang that is gone").isEmpty();
        assertThat(h.scheduler.preemptionStats().endedOvertaken()).isEqualTo(1);
        assertThat(h.scheduler.preemptionStats().endedRefused()).isZero();
        assertThat(h.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(h.scheduler.gang(key).slotNodes()).as("its reservation is gone").isEmpty();
        assertThat(h.totals().allocatedByQueue().get("default").cpuMillis()).as("both victims keep their room").isEqualTo(16_000);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aPreemptorThatRanAndThenWentBeforeTheNextTickWastedNoEviction() {
        SchedulerHarness h = cluster(2);
        List<Pod> low = running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        List<Pod> big = arrives(h, "big", "default", 4, 1000);
        h.scheduler.expireDue();
        assertThat(evictor.asked()).hasSize(4);

        // the victims go, big runs on their room, and its job is deleted (it finished) before the next tick
        victimsGo(h, low);
        assertThat(schedule(h, big)).allMatch(f -> f.join().ok());
        for (Pod p : big) {
            h.scheduler.deletePod(p.uid());
        }
        h.scheduler.deletePodGroup(new GangKey("default", "big"));
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.expireDue();

        assertThat(h.scheduler.preemptionStats().wastedEvictions()).as("big ran on its victims' room").isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aRefusalAfterTheDryRunIsRetriedWithBackoffAndTheDecisionIsNeverAbandoned() {
        SchedulerHarness h = cluster(2);
        h.scheduler.upsertPodGroup(podGroup("default", "low", 2, "default"));
        h.scheduler.upsertPod(pod("low-0").gang("low").requests("2", "1Gi").on("n0").build());
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.upsertPod(pod("low-1").gang("low").requests("2", "1Gi").on("n0").build());
        running(h, "other", "default", 2, 5, "n1", "n1");
        evictor.answerCheck("low-0", new EvictionOutcome.Evicted()); // the budget changed between the dry run and the eviction
        evictor.answer("low-0", new EvictionOutcome.RefusedByBudget("Cannot evict pod as it would violate the pod's disruption budget."));
        arrives(h, "big", "default", 2, 1000);
        GangKey key = new GangKey("default", "big");

        h.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-1", "low-0");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.RESERVED);

        // retried after 5 s, then after 10 s: the room stays the preemptor's meanwhile
        h.clock.advance(Duration.ofSeconds(6));
        h.scheduler.expireDue();
        assertThat(evictor.asked()).hasSize(3);
        h.clock.advance(Duration.ofSeconds(6));
        h.scheduler.expireDue();
        assertThat(evictor.asked()).hasSize(3);
        evictor.answer("low-0", new EvictionOutcome.Evicted());
        h.clock.advance(Duration.ofSeconds(5));
        h.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactly("low-1", "low-0", "low-0", "low-0");
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.RESERVED);
        assertThat(h.scheduler.gang(key).slotNodes()).containsOnly("n0");
        assertThat(h.scheduler.preemptionStats().evictionsRefusedByBudget()).isEqualTo(2);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void preemptionPolicyNeverTakesNoOnesRoom() {
        SchedulerHarness h = cluster(2);
        running(h, "low-a", "default", 2, 0, "n0", "n0");
        running(h, "low-b", "default", 2, 0, "n1", "n1");
        h.scheduler.upsertPodGroup(podGroup("default", "polite", 2, "default"));
        List<Pod> polite = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            polite.add(h.seen(pod("polite-" + i).gang("polite").requests("2", "1Gi").priority(1000).build().withPreemption(true, 30)));
        }
        h.scheduler.filter(polite.getFirst(), List.of());

        h.scheduler.expireDue();

        assertThat(evictor.asked()).isEmpty();
        assertThat(((PreemptionAdvice.CannotRun) h.scheduler.preemptionAdvice(new GangKey("default", "polite"))).why())
                .contains("has preemptionPolicy Never");
    }

    @Test
    void aGangTooYoungForTheMinimumRunTimeIsNotAVictim() {
        SchedulerHarness h = cluster(2, DisruptionBudgets.NONE,
                new PreemptionSettings(true, true, Duration.ofMinutes(10), Duration.ofSeconds(30), PreemptionSettings.DEFAULT_RECLAIM_BAND));
        running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        arrives(h, "big", "default", 2, 1000);

        h.scheduler.expireDue();
        assertThat(evictor.asked()).isEmpty();

        h.clock.advance(Duration.ofMinutes(11));
        h.scheduler.expireDue();
        assertThat(evictor.asked()).hasSize(4);
    }

    @Test
    void singlePodsOfLowerPriorityAreVictimsOnlyWhereTheGangNeedsThemTheRestAreReprieved() {
        SchedulerHarness h = cluster(3);
        List<Pod> singles = new ArrayList<>();
        for (int n = 0; n < 3; n++) {
            for (int i = 0; i < 2; i++) {
                Pod p = pod("batch-" + n + "-" + i).requests("2", "1Gi").priority(n == 2 ? 0 : 10).on("n" + n).build();
                h.scheduler.upsertPod(p);
                singles.add(p);
            }
        }
        arrives(h, "big", "default", 2, 1000);

        h.scheduler.expireDue();

        // the two lowest-priority pods, on one node, make room: no other pod is evicted
        assertThat(evictor.asked()).containsExactlyInAnyOrder("batch-2-0", "batch-2-1");
        assertThat(singles).hasSize(6);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aQueueBelowItsFairShareReclaimsUntilBothQueuesHoldTheirShareAndNeverTakesTurns() {
        SchedulerHarness h = cluster(4);
        h.scheduler.upsertQueue(queue("a"));
        h.scheduler.upsertQueue(queue("b"));
        // queue a borrowed the whole cluster: 4 gangs of 2 × 2 cpu
        for (int g = 0; g < 4; g++) {
            running(h, "a" + g, "a", 2, 0, "n" + g, "n" + g);
            h.clock.advance(Duration.ofSeconds(1));
        }
        // queue b's gangs arrive: it is owed half the cluster
        List<List<Pod>> bGangs = new ArrayList<>();
        for (int g = 0; g < 3; g++) {
            bGangs.add(arrives(h, "b" + g, "b", 2, 0));
        }
        for (int round = 0; round < 6; round++) {
            h.scheduler.expireDue(); // the pass computes shares, then preemption decides
            for (int g = 0; g < 4; g++) {
                victimsGoByGang(h, "a" + g);
            }
            for (List<Pod> b : bGangs) {
                schedule(h, b);
            }
            h.clock.advance(Duration.ofSeconds(1));
        }
        // b reclaimed two gangs' worth (its share, 8 cpu); a keeps its share; b's third gang waits
        assertThat(evictor.asked()).hasSize(4);
        assertThat(h.totals().allocatedByQueue().get("a").cpuMillis()).isEqualTo(8_000);
        assertThat(h.totals().allocatedByQueue().get("b").cpuMillis()).isEqualTo(8_000);
        assertThat(h.scheduler.preemptionStats().reclaimDecisions()).isEqualTo(2);
        assertThat(decisions(h)).allMatch(d -> d.kind() == PreemptionKind.RECLAIM && d.queue().equals("b"));

        // a's next gang cannot take it back: a is at its share
        arrives(h, "a9", "a", 2, 0);
        h.ticks(3, Duration.ofSeconds(6));
        assertThat(evictor.asked()).hasSize(4);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aNonReclaimableQueueAndAGuaranteeAreNeverReclaimed() {
        SchedulerHarness h = cluster(4);
        h.scheduler.upsertQueue(new QueueSpec("a", QueueState.OPEN, 1, null, Resources.ZERO, Resources.ZERO, false));
        h.scheduler.upsertQueue(queue("b"));
        for (int g = 0; g < 4; g++) {
            running(h, "a" + g, "a", 2, 0, "n" + g, "n" + g);
        }
        arrives(h, "b0", "b", 2, 0);
        h.ticks(3, Duration.ofSeconds(6));
        assertThat(evictor.asked()).isEmpty();
        assertThat(h.whyCannotRun("b0")).contains("no queue above its fair share has room to give back");
    }

    @Test
    void theDryRunNamesTheVictimsThePreemptionThenEvictsAndChangesNothing() {
        SchedulerHarness h = cluster(4);
        running(h, "low-a", "default", 4, 0, "n0", "n0", "n1", "n1");
        h.clock.advance(Duration.ofSeconds(10));
        List<Pod> lowB = running(h, "low-b", "default", 4, 0, "n2", "n2", "n3", "n3");
        arrives(h, "big", "default", 4, 1000);
        GangKey key = new GangKey("default", "big");
        var before = h.scheduler.ledger();

        PreemptionAdvice advice = h.scheduler.preemptionAdvice(key);

        assertThat(h.scheduler.ledger()).isEqualTo(before);
        assertThat(evictor.asked()).isEmpty();
        PreemptionAdvice.Preempt p = (PreemptionAdvice.Preempt) advice;
        assertThat(p.kind()).isEqualTo(PreemptionKind.PRIORITY);
        assertThat(p.pods()).isEqualTo(4);
        assertThat(p.nodes()).isEqualTo(2);
        assertThat(p.victims()).singleElement().satisfies(u -> {
            assertThat(u.gang()).isEqualTo(new GangKey("default", "low-b"));
            assertThat(u.surplusOnly()).isFalse();
        });
        List<String> advised = p.victims().getFirst().pods().stream().map(v -> v.pod().name()).sorted().toList();

        h.scheduler.expireDue();
        assertThat(evictor.asked().stream().sorted().toList()).isEqualTo(advised).isEqualTo(names(lowB));
        assertThat(h.scheduler.preemptionAdvice(key)).isInstanceOf(PreemptionAdvice.NoneNeeded.class);
    }

    @Test
    void kubeSchedulersPreemptionGetsNoCandidateForAGangMemberAndNoneWhereTheRoomIsHeldForAGang() {
        SchedulerHarness h = cluster(2);
        Pod s0 = h.seen(pod("s0").requests("2", "1Gi").priority(5).on("n0").build());
        Pod s1 = h.seen(pod("s1").requests("2", "1Gi").priority(5).on("n0").build());
        Pod batch = h.seen(pod("batch").requests("2", "1Gi").on("n1").build());
        List<Pod> big = arrives(h, "big", "default", 2, 1000);

        assertThat(h.scheduler.preempt(big.getFirst(), Map.of("n1", new Victims(List.of(batch.uid()), 0)))).isEmpty();

        h.scheduler.expireDue(); // big takes the lowest-priority pod, on n1
        assertThat(evictor.asked()).containsExactly("batch");
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(2000).build());
        Map<String, Victims> candidates = Map.of("n0", new Victims(List.of(s0.uid(), s1.uid()), 0), "n1", new Victims(List.of(), 0));
        // n1's room is the preemptor's: evicting there would not let vip in; n0's pods would
        assertThat(h.scheduler.preempt(vip, candidates)).containsOnlyKeys("n0");
    }

    @Test
    void preemptionIsOffWithoutAnEvictorAndWhenTheSettingsSaySo() {
        SchedulerHarness h = cluster(2, DisruptionBudgets.NONE, PreemptionSettings.OFF);
        running(h, "low", "default", 2, 0, "n0", "n0", "n1", "n1");
        arrives(h, "big", "default", 2, 1000);
        h.scheduler.expireDue();
        assertThat(evictor.asked()).isEmpty();
        assertThat(((PreemptionAdvice.CannotRun) h.scheduler.preemptionAdvice(new GangKey("default", "big"))).why())
                .isEqualTo("preemption and queue reclaim are off");
    }

    private void victimsGoByGang(SchedulerHarness h, String gang) {
        for (var s : h.scheduler.ledger().pods()) {
            if (s.gang() != null && s.gang().name().equals(gang) && evictor.asked().contains(s.pod().name())) {
                h.scheduler.deletePod(s.pod().uid());
            }
        }
    }

    static List<AllocationEvent.PreemptionDecided> decisions(SchedulerHarness h) {
        var read = (dev.muster.core.stream.AllocationJournal.Read.Events) h.journal.readAfter(0, 1 << 16);
        return read.events().stream().map(e -> e.event())
                .filter(e -> e instanceof AllocationEvent.PreemptionDecided).map(e -> (AllocationEvent.PreemptionDecided) e)
                .collect(Collectors.toList());
    }
}
