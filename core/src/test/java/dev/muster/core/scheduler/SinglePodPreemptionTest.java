package dev.muster.core.scheduler;

import static dev.muster.core.scheduler.PreemptionTest.arrives;
import static dev.muster.core.scheduler.PreemptionTest.running;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroupGoingWhole;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.ledger.PodHolds;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Single pods of higher priority take room from gangs: through Muster's own decision when kube-scheduler's preemption
 * would break a gang, and by keeping the room kube-scheduler freed for a nominated pod.
 */
class SinglePodPreemptionTest {
    private final RecordingEvictor evictor = new RecordingEvictor();

    private SchedulerHarness cluster(int nodes) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor,
                DisruptionBudgets.NONE);
        for (int i = 0; i < nodes; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        return h;
    }

    /** kube-scheduler's DefaultPreemption for {@code p} where every running pod is of lower priority: every pod of each node. */
    private static Map<String, Victims> defaultPreemption(SchedulerHarness h, Pod p) {
        Map<String, List<String>> byNode = new LinkedHashMap<>();
        for (var r : h.scheduler.ledger().pods()) {
            byNode.computeIfAbsent(r.node(), n -> new ArrayList<>()).add(r.pod().uid());
        }
        Map<String, Victims> out = new LinkedHashMap<>();
        byNode.forEach((n, uids) -> out.put(n, new Victims(uids, 0)));
        return out;
    }

    private static long free(SchedulerHarness h, String node) {
        var n = h.scheduler.ledger().nodes().stream().filter(x -> x.name().equals(node)).findFirst().orElseThrow();
        return n.allocatable().minus(n.used()).minus(n.reserved()).cpuMillis();
    }

    private void victimsGo(SchedulerHarness h, List<Pod> pods) {
        for (Pod p : pods) {
            if (evictor.asked().contains(p.id().name())) {
                h.scheduler.deletePod(p.uid());
            }
        }
    }

    @Test
    void aSinglePodTakesAWholeGangsRoomWhenKubeSchedulersVictimsWouldBreakIt() {
        SchedulerHarness h = cluster(2);
        List<Pod> low = running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1"); // spans both nodes
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build());

        // on each node kube-scheduler would take half the gang: the gang would run below its minMember
        assertThat(h.scheduler.preempt(vip, defaultPreemption(h, vip))).isEmpty();
        h.scheduler.expireDue();

        // Muster takes the gang whole, and holds one node for vip
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3");
        PodHolds.Hold hold = h.scheduler.ledger().hold(vip.uid());
        assertThat(hold).isNotNull();
        assertThat(h.scheduler.preempt(vip, defaultPreemption(h, vip))).as("its decision is under way").isEmpty();
        assertThat(h.scheduler.filter(vip, List.of()).feasible()).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();

        victimsGo(h, low);
        // a lower-priority gang arriving now gets the other node, never vip's
        arrives(h, "later", "default", 2, 0);
        assertThat(h.scheduler.gang(new GangKey("default", "later")).slotNodes()).doesNotContain(hold.node());
        Pod small = h.seen(pod("small").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(small, List.of(hold.node())).feasible()).isEmpty();

        assertThat(h.scheduler.filter(vip, List.of("n0", "n1")).feasible()).containsExactly(hold.node());
        assertThat(h.schedule(vip).toCompletableFuture().join()).isEqualTo(BindResult.BOUND);
        assertThat(h.scheduler.ledger().pods().stream().filter(r -> r.pod().uid().equals(vip.uid())).findFirst().orElseThrow().node()).isEqualTo(hold.node());
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
        h.scheduler.expireDue();
        assertThat(h.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(h.invariantViolations()).isEmpty();

        // recorded as a gang's decision is, once its evictions were sent: the victim gang's PodGroup is told from it
        var decided = PreemptionTest.decisions(h);
        assertThat(decided).hasSize(1);
        assertThat(decided.getFirst().preemptor()).isEqualTo(AllocationEvent.PreemptionDecided.singlePod("default", "vip"));
        assertThat(decided.getFirst().bySinglePod()).isTrue();
        assertThat(decided.getFirst().queue()).isEmpty();
        assertThat(decided.getFirst().priority()).isEqualTo(1000);
        assertThat(decided.getFirst().kind()).isEqualTo(PreemptionKind.PRIORITY);
        assertThat(decided.getFirst().victims()).extracting(v -> v.pod().name()).containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3");
        assertThat(decided.getFirst().victims()).allMatch(v -> new GangKey("default", "low").equals(v.gang()));
        assertThat(decided.getFirst().nodes()).isEqualTo(2);
    }

    @Test
    void aPodKubeSchedulerPlacedOnItsHeldRoomThatGoesBeforeTheNextTickWastedNoEviction() {
        placedOnItsHeldRoomThenGone(true);
    }

    @Test
    void aPodMusterBoundOnItsHeldRoomThatGoesBeforeTheNextTickWastedNoEviction() {
        placedOnItsHeldRoomThenGone(false);
    }

    /** vip, of high priority, on a full cluster: Muster's decision evicted a whole gang for it, and its victims went. */
    private record Decided(SchedulerHarness h, Pod vip, String heldNode) {}

    private Decided decidedAndVictimsGone() {
        SchedulerHarness h = cluster(2);
        List<Pod> low = running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build());
        h.scheduler.preempt(vip, defaultPreemption(h, vip));
        h.scheduler.expireDue();
        String node = h.scheduler.ledger().hold(vip.uid()).node();
        victimsGo(h, low);
        return new Decided(h, vip, node);
    }

    private void placedOnItsHeldRoomThenGone(boolean kubeSchedulerBinds) {
        Decided d = decidedAndVictimsGone();
        SchedulerHarness h = d.h();
        if (kubeSchedulerBinds) {
            h.seen(pod("vip").uid(d.vip().uid()).requests("4", "1Gi").priority(1000).on(d.heldNode()).build());
        } else {
            assertThat(h.schedule(d.vip()).toCompletableFuture().join()).isEqualTo(BindResult.BOUND);
        }
        h.scheduler.deletePod(d.vip().uid()); // its job was done (or it was deleted) before the next tick
        h.scheduler.expireDue();

        assertThat(h.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aPodThatGoesWithoutBeingPlacedWastedItsVictims() {
        Decided d = decidedAndVictimsGone();
        d.h().scheduler.deletePod(d.vip().uid());
        d.h().scheduler.expireDue();

        assertThat(d.h().scheduler.preemptionStats().wastedEvictions()).isEqualTo(4);
    }

    @Test
    void aBindMusterRefusesLeavesThePodsHeldRoomAsItWas() {
        Decided d = decidedAndVictimsGone();
        SchedulerHarness h = d.h();
        PodHolds.Hold held = h.scheduler.ledger().hold(d.vip().uid());
        assertThat(h.scheduler.filter(d.vip(), List.of("n0", "n1")).feasible()).containsExactly(d.heldNode());
        Pod other = h.seen(pod("other").requests("4", "1Gi").on(d.heldNode()).build()); // took the room meanwhile

        assertThat(h.scheduler.bind(d.vip().id(), d.heldNode()).join().ok()).isFalse();
        assertThat(h.scheduler.ledger().hold(d.vip().uid())).as("still held, as it was").isEqualTo(held);

        h.scheduler.deletePod(other.uid());
        assertThat(h.schedule(d.vip()).join()).isEqualTo(BindResult.BOUND);
        assertThat(h.scheduler.ledger().hold(d.vip().uid())).isNull();
        assertThat(free(h, d.heldNode())).isZero();
        h.scheduler.expireDue();
        assertThat(h.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void whereKubeSchedulersVictimsLeaveTheGangAtItsMinimumTheyStandAndMusterDecidesNothing() {
        SchedulerHarness h = cluster(2);
        h.scheduler.upsertPodGroup(dev.muster.core.testing.Fixtures.podGroup("default", "elastic", 2, "default"));
        String[] nodes = {"n0", "n0", "n1", "n1"};
        for (int i = 0; i < 4; i++) {
            h.seen(pod("elastic-" + i).gang("elastic").requests("2", "1Gi").on(nodes[i]).build());
        }
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build());
        Map<String, Victims> candidates = defaultPreemption(h, vip);

        // either node's two members are the gang's surplus over its minMember of 2: kube-scheduler evicts them itself
        assertThat(h.scheduler.preempt(vip, candidates)).isEqualTo(candidates);
        h.scheduler.expireDue();

        assertThat(evictor.checked()).isEmpty();
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
    }

    @Test
    void aGangWhoseDisruptionModeIsAllGoesWholeForASinglePod() {
        SchedulerHarness h = cluster(2);
        PodGroupSpec all = podGroupGoingWhole("default", "whole", 2, "default");
        running(h, all, 0, "n0", "n0", "n1", "n1");
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build());
        assertThat(h.scheduler.preempt(vip, defaultPreemption(h, vip))).isEmpty();

        h.scheduler.expireDue();

        assertThat(evictor.asked()).containsExactlyInAnyOrder("whole-0", "whole-1", "whole-2", "whole-3");
    }

    @Test
    void nothingOfEqualOrHigherPriorityIsTakenAndNothingIsEvictedWhenTheRoomCannotBeMade() {
        SchedulerHarness h = cluster(2);
        running(h, "peer", "default", 4, 1000, "n0", "n0", "n1", "n1");
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build());
        h.scheduler.preempt(vip, Map.of("n0", new Victims(List.of(), 0)));

        h.scheduler.expireDue();

        assertThat(evictor.checked()).isEmpty();
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
    }

    @Test
    void aRefusedDryRunGivesTheRoomBackAndEvictsNothing() {
        SchedulerHarness h = cluster(2);
        running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        evictor.answerCheck("low-1", new EvictionOutcome.RefusedByBudget("Cannot evict pod as it would violate the pod's disruption budget."));
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build());
        h.scheduler.preempt(vip, defaultPreemption(h, vip));

        h.scheduler.expireDue();

        assertThat(evictor.asked()).isEmpty();
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void theRoomKubeSchedulerFreedForANominatedPodIsNotGivenToALowerPriorityGang() {
        SchedulerHarness h = cluster(2);
        h.seen(pod("web").requests("4", "1Gi").on("n1").build()); // n1 is full; n0 was just freed for vip
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build().withNomination("n0"));
        assertThat(h.scheduler.ledger().hold(vip.uid()).source()).isEqualTo(PodHolds.Source.NOMINATED);

        arrives(h, "low", "default", 2, 0);
        h.scheduler.expireDue();

        GangKey low = new GangKey("default", "low");
        assertThat(h.scheduler.ledger().reservation(low)).isNull();
        Pod other = h.seen(pod("other").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(other, List.of("n0")).feasible()).isEmpty();
        assertThat(h.scheduler.filter(vip, List.of("n0")).feasible()).containsExactly("n0");
        assertThat(h.schedule(vip).toCompletableFuture().join()).isEqualTo(BindResult.BOUND);
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aNominatedGangMemberHoldsNothingBesideItsGangsReservation() {
        SchedulerHarness h = cluster(1);
        List<Pod> members = arrives(h, "g", "default", 2, 0);
        h.seen(members.getFirst().withNomination("n0"));
        assertThat(h.scheduler.ledger().hold(members.getFirst().uid())).isNull();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aWithdrawnNominationGivesTheRoomBack() {
        SchedulerHarness h = cluster(1);
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build().withNomination("n0"));
        assertThat(free(h, "n0")).isZero();

        h.seen(vip.withNomination(null));

        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
        assertThat(free(h, "n0")).isEqualTo(4_000);
        h.seen(vip.withNomination("n0"));
        h.scheduler.deletePod(vip.uid());
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
        assertThat(h.invariantViolations()).isEmpty();
    }
}
