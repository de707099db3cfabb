package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.provision.ProvisionHold;
import dev.muster.core.provision.Provisioning;
import dev.muster.core.provision.RequestStatus;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The queue-admission gate and all-or-nothing scale-up together: a gang its queue admits that fits neither the free room
 * nor by preemption stays behind Muster's gate and says it waits for the autoscaler; once its request is Provisioned and
 * the nodes register, the gate is lifted with the annotations that make cluster-autoscaler count the pods against the
 * request, and the gang binds whole on the new room.
 */
class GatedProvisioningTest {
    private static final GangKey BIG = new GangKey("default", "big");

    /** The pods the scheduler lifted its gate from. */
    private final QueueGateTest.Lifts lifts = new QueueGateTest.Lifts();
    /** Preemption on and Muster's gate on. */
    private final SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT)
            .withQueueGate(QueueGate.on(lifts)), new RecordingEvictor(), DisruptionBudgets.NONE);
    /** All-or-nothing scale-up. */
    private final Provisioning provisioning = new Provisioning(Provisioning.Settings.atomic());

    @BeforeEach
    void twoNodesTheDefaultQueueAndProvisioning() {
        h.nodes(node("n0", "4", "16Gi"), node("n1", "4", "16Gi"));
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        provisioning.listed();
        h.scheduler.provisioning(provisioning);
    }

    /** A PodGroup of {@code size} in the queue {@code default} and its members of 3 cpu, seen; {@code gated}: Muster's gate on them. */
    private List<Pod> gang(String name, int size, boolean gated) {
        h.scheduler.upsertPodGroup(podGroup("default", name, size, "default"));
        List<Pod> members = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            var member = pod(name + "-" + i).gang(name).requests("3", "1Gi");
            members.add(h.seen((gated ? member.constraints(QueueGateTest.MUSTERS) : member).build()));
        }
        return members;
    }

    @Test
    void aGatedGangLargerThanTheClusterIsLiftedOnlyOnceItsProvisionedRoomIsThereAndBindsWholeOnIt() {
        List<Pod> big = gang("big", 4, true);
        h.ticks(3, Duration.ofMillis(500));
        h.scheduler.askProvisioning();

        assertThat(lifts.lifted).as("its queue admits it, but the nodes it needs are not there: it stays gated").isEmpty();
        assertThat(h.scheduler.gang(BIG).why().text()).contains("waiting for 4 nodes from the autoscaler (ProvisioningRequest default/big-1");
        assertThat(h.scheduler.stats().gangsGated()).containsExactly(Map.entry("hold", 1));
        assertThat(provisioning.drain()).containsExactly(new Provisioning.Work.Create(BIG, "big-1", 1, List.of("big-0", "big-1", "big-2", "big-3")));

        provisioning.observed(BIG, "big-1", new RequestStatus(true, true, false, false, false, "", ""), 0);
        h.ticks(2, Duration.ofMillis(500));
        assertThat(lifts.lifted).as("Provisioned, but the autoscaler's nodes have not registered yet").isEmpty();

        h.nodes(node("n2", "4", "16Gi"), node("n3", "4", "16Gi"));
        h.ticks(2, Duration.ofMillis(500));
        assertThat(lifts.names()).containsExactlyInAnyOrder("big-0", "big-1", "big-2", "big-3");
        assertThat(lifts.annotations).allSatisfy(a -> assertThat(a).containsEntry(ProvisionHold.CONSUME, "big-1")
                .containsEntry(ProvisionHold.CLASS, "best-effort-atomic-scale-up.autoscaling.x-k8s.io"));
        QueueGateTest.scheduleAll(h, QueueGateTest.ungated(h, big));
        assertThat(h.scheduler.gang(BIG).state()).isEqualTo(GangState.BOUND);
        assertThat(h.binder.bound().values()).containsExactlyInAnyOrder("n0", "n1", "n2", "n3");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void noOtherPodTakesANodeBoughtForTheGangWhileItsNodesRegister() {
        List<Pod> big = gang("big", 4, true);
        h.ticks(3, Duration.ofMillis(500));
        assertThat(provisioning.drain()).hasSize(1);
        provisioning.observed(BIG, "big-1", new RequestStatus(true, true, false, false, false, "", ""), 0); // its nodes come after
        h.ticks(2, Duration.ofMillis(500));

        assertThat(h.scheduler.gang(BIG).why().text()).as("it keeps saying what it waits for")
                .contains("waiting for 4 nodes from the autoscaler (ProvisioningRequest default/big-1: Provisioned)");
        h.nodes(node("n2", "4", "16Gi")); // the first of its nodes registers; a rival that fits it is filtered at once
        Pod rival = h.seen(pod("rival").requests("3", "1Gi").build());
        assertThat(h.scheduler.filter(rival, List.of("n2")).feasible()).as("n2 is set aside for big").isEmpty();
        h.ticks(2, Duration.ofMillis(500));
        assertThat(h.scheduler.filter(rival, List.of("n2")).feasible()).as("and stays so at the next passes").isEmpty();
        assertThat(lifts.lifted).isEmpty();

        h.nodes(node("n3", "4", "16Gi"));
        h.ticks(2, Duration.ofMillis(500));
        assertThat(h.scheduler.filter(rival, List.of("n2", "n3")).feasible()).as("reserved for big").isEmpty();
        assertThat(lifts.names()).containsExactlyInAnyOrder("big-0", "big-1", "big-2", "big-3");
        QueueGateTest.scheduleAll(h, QueueGateTest.ungated(h, big));
        assertThat(h.scheduler.gang(BIG).state()).isEqualTo(GangState.BOUND);
        assertThat(h.binder.bound().values()).containsExactlyInAnyOrder("n0", "n1", "n2", "n3");
        assertThat(h.invariantViolations()).isEmpty();
    }

    /**
     * A gang whose pods carry no gate of Muster's (made before the gate was on, say) and that needs more nodes than the
     * cluster has: cluster-autoscaler sees its pending pods and buys for them itself, so Muster asks for nothing, ever;
     * a gated gang of the same size beside it is asked for once.
     */
    @Test
    void aGangPastTheGateGetsNoRequestSoItsNodesAreNotBoughtTwice() {
        gang("early", 4, false);
        h.ticks(3, Duration.ofMillis(500));
        h.scheduler.askProvisioning();
        h.ticks(12, Duration.ofMillis(1_000)); // past the hold's recheck of a judged gang
        h.scheduler.askProvisioning();
        assertThat(provisioning.drain()).as("no request for early").isEmpty();
        assertThat(h.scheduler.heldForNodes()).doesNotContainKey(new GangKey("default", "early"));

        gang("big", 4, true);
        h.ticks(3, Duration.ofMillis(500));
        assertThat(provisioning.drain()).extracting(w -> ((Provisioning.Work.Create) w).gang()).containsExactly(BIG);
        assertThat(h.invariantViolations()).isEmpty();
    }

    /**
     * The nodes bought for a gang are its own even when another gang stands ahead of it in line waiting for room (here
     * one whose pods carry no gate, so it is not held back by Muster): the gang with the Provisioned request claims them
     * first, each as it registers, and the other goes on waiting.
     */
    @Test
    void aGangAheadInLineDoesNotTakeTheNodesBoughtForAnother() {
        QueueGateTest.scheduleAll(h, List.of(h.seen(pod("fill-0").requests("3", "1Gi").build()),
                h.seen(pod("fill-1").requests("3", "1Gi").build())));

        List<Pod> early = gang("early", 2, false); // no gate: made before the gate was on, say
        h.ticks(3, Duration.ofMillis(500));
        List<Pod> big = gang("big", 2, true);
        h.ticks(3, Duration.ofMillis(500));
        h.scheduler.askProvisioning();
        assertThat(provisioning.drain()).as("only big, behind Muster's gate, is asked for: cluster-autoscaler sees early's pods itself")
                .extracting(w -> ((Provisioning.Work.Create) w).gang()).containsExactly(BIG);
        provisioning.observed(BIG, "big-1", new RequestStatus(true, true, false, false, false, "", ""), 0);
        h.ticks(2, Duration.ofMillis(500));

        h.nodes(node("n2", "4", "16Gi"));
        h.ticks(2, Duration.ofMillis(500));
        h.nodes(node("n3", "4", "16Gi"));
        h.ticks(2, Duration.ofMillis(500));
        assertThat(lifts.names()).as("its nodes came: big is lifted").containsExactlyInAnyOrder("big-0", "big-1");
        for (Pod p : early) {
            assertThat(h.scheduler.filter(p, List.of("n2", "n3")).feasible()).as(p.id() + " may not take big's nodes").isEmpty();
        }
        QueueGateTest.scheduleAll(h, QueueGateTest.ungated(h, big));
        assertThat(h.scheduler.gang(BIG).state()).isEqualTo(GangState.BOUND);
        assertThat(h.scheduler.gang(new GangKey("default", "early")).state()).isNotEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }
}
