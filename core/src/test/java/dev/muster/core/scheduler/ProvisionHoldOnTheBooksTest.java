package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.provision.Provisioning;
import dev.muster.core.provision.RequestStatus;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The provisioning hold on the core's own books ({@code ClusterRoom}), with Muster's gate on as provisioning needs it and
 * the gangs' pods behind it: a gang asks for nodes only when it neither fits the
 * free room nor would be placed by preemption, and the provisioned room is reserved for it.
 */
class ProvisionHoldOnTheBooksTest {
    private static final GangKey BIG = new GangKey("default", "big");
    private final Provisioning provisioning = new Provisioning(Provisioning.Settings.atomic());

    private SchedulerHarness cluster(int nodes) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT)
                .withQueueGate(QueueGate.on(new QueueGateTest.Lifts())), new RecordingEvictor(), DisruptionBudgets.NONE);
        for (int i = 0; i < nodes; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(dev.muster.core.testing.Fixtures.queue("default"));
        h.scheduler.markSynced();
        provisioning.listed();
        h.scheduler.provisioning(provisioning);
        return h;
    }

    private static void gang(SchedulerHarness h, String name, int n, String cpu, int priority) {
        h.scheduler.upsertPodGroup(podGroup("default", name, n, "default"));
        for (int i = 0; i < n; i++) {
            h.seen(pod(name + "-" + i).gang(name).requests(cpu, "1Gi").priority(priority).constraints(QueueGateTest.MUSTERS).build());
        }
    }

    @Test
    void aGangLargerThanTheClusterGetsOneRequestAndTheProvisionedNodesAreReservedForIt() {
        SchedulerHarness h = cluster(2);
        gang(h, "big", 4, "3", 0);
        assertThat(h.scheduler.askProvisioning()).containsEntry(BIG,
                "waiting for 4 nodes from the autoscaler (ProvisioningRequest default/big-1: Requested)");
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.askProvisioning();
        assertThat(provisioning.drain()).containsExactly(new Provisioning.Work.Create(BIG, "big-1", 1, List.of("big-0", "big-1", "big-2", "big-3")));

        provisioning.observed(BIG, "big-1", new RequestStatus(true, true, false, false, false, "", ""), 0);
        assertThat(h.scheduler.askProvisioning().get(BIG)).contains("Provisioned").contains("its room is not all there yet");
        h.nodes(node("n2", "4", "16Gi"), node("n3", "4", "16Gi")); // the autoscaler's nodes register
        assertThat(h.scheduler.askProvisioning()).doesNotContainKey(BIG);
        assertThat(h.scheduler.gang(BIG).state()).isEqualTo(GangState.RESERVED);
        assertThat(h.scheduler.gang(BIG).slotNodes()).containsExactlyInAnyOrder("n0", "n1", "n2", "n3");
        // another gang that would fit on the new room is not admitted onto it while big binds
        h.scheduler.upsertPodGroup(podGroup("default", "small", 1, "default"));
        Pod small = h.seen(pod("small-0").gang("small").requests("3", "1Gi").build());
        assertThat(h.scheduler.filter(small, List.of("n2", "n3")).feasible()).isEmpty();
        assertThat(provisioning.drain()).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangThatFitsOrThatPreemptionWouldPlaceAsksForNothing() {
        SchedulerHarness h = cluster(2);
        gang(h, "fits", 2, "3", 0);
        assertThat(h.scheduler.askProvisioning()).isEmpty();
        // a low-priority gang holds the cluster; a higher one that preemption would place asks for no nodes
        SchedulerHarness p = cluster(2);
        PreemptionTest.running(p, "low", "default", 2, 0, "n0", "n1");
        p.clock.advance(Duration.ofMinutes(10));
        gang(p, "high", 2, "3", 1000);
        assertThat(p.scheduler.askProvisioning()).isEmpty();
        assertThat(provisioning.drain()).isEmpty();
    }

    @Test
    void aGangWhosePodsDoNotAllExistAsksOnceTheyDo() {
        SchedulerHarness h = cluster(1);
        h.scheduler.upsertPodGroup(podGroup("default", "big", 3, "default"));
        h.seen(pod("big-0").gang("big").requests("3", "1Gi").constraints(QueueGateTest.MUSTERS).build());
        assertThat(h.scheduler.askProvisioning().get(BIG)).contains("once all its pods exist (1/3)");
        assertThat(provisioning.drain()).isEmpty();
        h.seen(pod("big-1").gang("big").requests("3", "1Gi").constraints(QueueGateTest.MUSTERS).build());
        h.seen(pod("big-2").gang("big").requests("3", "1Gi").constraints(QueueGateTest.MUSTERS).build());
        h.clock.advance(Duration.ofSeconds(6));
        assertThat(h.scheduler.askProvisioning().get(BIG)).contains("waiting for 3 nodes");
    }
}
