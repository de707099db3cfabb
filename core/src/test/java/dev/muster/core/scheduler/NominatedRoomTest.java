package dev.muster.core.scheduler;

import static dev.muster.core.scheduler.PreemptionTest.arrives;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.ledger.PodHolds;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.testing.RecordingEvictor;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The room kube-scheduler freed for a nominated pod is kept from pods and gangs of equal or lower priority, as
 * kube-scheduler itself counts a nominated pod only against those; one of strictly higher priority may take it, and the
 * nomination then gives way. Two 4-cpu nodes: n1 is full, n0 is nominated for {@code vip} (priority 1000, 4 cpu).
 */
class NominatedRoomTest {
    private final RecordingEvictor evictor = new RecordingEvictor();

    private SchedulerHarness cluster() {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor,
                DisruptionBudgets.NONE);
        h.nodes(node("n0", "4", "16Gi"), node("n1", "4", "16Gi"));
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        h.seen(pod("web").requests("4", "1Gi").priority(5000).on("n1").build());
        return h;
    }

    private static Pod vip(SchedulerHarness h) {
        Pod vip = h.seen(pod("vip").requests("4", "1Gi").priority(1000).build().withNomination("n0"));
        assertThat(h.scheduler.ledger().hold(vip.uid()).source()).isEqualTo(PodHolds.Source.NOMINATED);
        return vip;
    }

    @Test
    void aPodOfEqualPriorityIsKeptOutAndOneOfHigherPriorityTakesTheRoom() {
        SchedulerHarness h = cluster();
        Pod vip = vip(h);

        Pod peer = h.seen(pod("peer").requests("1", "1Gi").priority(1000).build());
        assertThat(h.scheduler.filter(peer, List.of("n0")).feasible()).as("equal priority: kept out").isEmpty();
        Pod lower = h.seen(pod("lower").requests("1", "1Gi").priority(999).build());
        assertThat(h.scheduler.filter(lower, List.of("n0")).feasible()).as("lower priority: kept out").isEmpty();

        Pod boss = h.seen(pod("boss").requests("3", "1Gi").priority(1001).build());
        assertThat(h.scheduler.filter(boss, List.of("n0")).feasible()).as("higher priority: may take it").containsExactly("n0");
        assertThat(h.schedule(boss).toCompletableFuture().join()).isEqualTo(BindResult.BOUND);

        // vip's room is gone: its hold gave way, and the same nomination does not hold it again
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNull();
        h.seen(vip.withNomination("n0"));
        assertThat(h.scheduler.ledger().hold(vip.uid())).as("not held again for the same nomination").isNull();
        assertThat(h.invariantViolations()).isEmpty();

        // a fresh nomination elsewhere is held again
        h.seen(vip.withNomination("n1"));
        assertThat(h.scheduler.ledger().hold(vip.uid())).isNotNull();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangOfEqualPriorityWaitsAndAGangOfHigherPriorityIsAdmittedOnTheRoom() {
        SchedulerHarness h = cluster();
        Pod vip = vip(h);

        List<Pod> peer = arrives(h, "peer", "default", 2, 1000);
        h.scheduler.expireDue();
        assertThat(h.scheduler.ledger().reservation(new GangKey("default", "peer"))).as("equal priority: kept out").isNull();
        assertThat(evictor.asked()).as("and nothing evicted for it").isEmpty();

        peer.forEach(p -> h.scheduler.deletePod(p.uid()));
        h.scheduler.deletePodGroup(new GangKey("default", "peer"));
        arrives(h, "boss", "default", 2, 1001);
        h.scheduler.expireDue();
        assertThat(h.scheduler.ledger().reservation(new GangKey("default", "boss"))).as("higher priority: admitted on the room").isNotNull();
        assertThat(h.scheduler.gang(new GangKey("default", "boss")).slotNodes()).containsOnly("n0");
        assertThat(h.scheduler.ledger().hold(vip.uid())).as("the nomination gave way").isNull();
        assertThat(evictor.asked()).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }
}
