package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.testing.RecordingEvictor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** kube-scheduler's preempt path counts a gang's members already on their way out as lost. */
class PreemptVerbLeavingMembersTest {
    @Test
    void aMemberAlreadyTerminatingCountsLostSoKubeSchedulersVictimWouldTakeTheGangBelowItsMinimum() {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), new RecordingEvictor(),
                DisruptionBudgets.NONE);
        h.nodes(node("n0", "4", "16Gi"), node("n1", "4", "16Gi"));
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        h.scheduler.upsertPodGroup(podGroup("default", "mid", 3, "default"));
        String[] nodes = {"n0", "n0", "n1", "n1"};
        Pod[] members = new Pod[4];
        for (int i = 0; i < 4; i++) {
            members[i] = h.seen(pod("mid-" + i).gang("mid").requests("2", "1Gi").on(nodes[i]).build());
        }
        h.seen(members[3].asInCluster("", true)); // being deleted: it still holds its room while it terminates
        Pod vip = h.seen(pod("vip").requests("2", "1Gi").priority(1000).build());

        // 4 bound, minMember 3: taking mid-0 as well as losing mid-3 would leave 2
        Map<String, Victims> answer = h.scheduler.preempt(vip, Map.of("n0", new Victims(List.of(members[0].uid()), 0)));

        assertThat(answer).isEmpty();
    }
}
