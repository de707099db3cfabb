package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.testing.RecordingEvictor;
import org.junit.jupiter.api.Test;

/**
 * The single pods a decision may take are Muster's own, found through the books' file of single pods: pods of other
 * schedulers are never victims, and a single pod's file follows it as it binds, moves and goes.
 */
class PreemptionCandidatesTest {
    private final GangKey big = new GangKey("default", "big");

    /** One node of 4 cpu: three 1-cpu pods of default-scheduler (priority 0) and Muster's single pod web (1 cpu, priority 0). */
    private SchedulerHarness cluster() {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), new RecordingEvictor(),
                DisruptionBudgets.NONE);
        h.nodes(node("n0", "4", "16Gi"), node("n1", "4", "16Gi"));
        h.scheduler.upsertQueue(queue("default"));
        for (int i = 0; i < 3; i++) {
            h.scheduler.upsertPod(pod("other-" + i).requests("1", "1Gi").priority(0).on("n0").build().asInCluster("default-scheduler", false));
        }
        h.scheduler.upsertPod(pod("filler").requests("4", "1Gi").priority(500).on("n1").build().asInCluster(SchedulerConfig.DEFAULT.schedulerName(), false));
        h.scheduler.markSynced();
        return h;
    }

    private static Pod web(String node) {
        return pod("web").requests("1", "1Gi").priority(0).on(node).build().asInCluster(SchedulerConfig.DEFAULT.schedulerName(), false);
    }

    /** A gang of one 1-cpu member of priority 100 arrives. */
    private void bigArrives(SchedulerHarness h) {
        h.scheduler.upsertPodGroup(podGroup("default", "big", 1, "default"));
        Pod p = pod("big-0").gang("big").requests("1", "1Gi").priority(100).build();
        h.scheduler.upsertPod(p);
        h.scheduler.filter(p, java.util.List.of());
    }

    @Test
    void onlyMustersOwnSinglePodIsAVictimNeverAnotherSchedulersPod() {
        SchedulerHarness h = cluster();
        h.scheduler.upsertPod(web("n0"));
        bigArrives(h);

        PreemptionAdvice advice = h.scheduler.preemptionAdvice(big);

        assertThat(advice).isInstanceOfSatisfying(PreemptionAdvice.Preempt.class, p -> assertThat(p.victims())
                .flatExtracting(PreemptionAdvice.VictimUnit::pods).extracting(v -> v.pod().name()).containsExactly("web"));
    }

    @Test
    void withMustersSinglePodGoneNothingMayBeTakenFromAnotherSchedulersPods() {
        SchedulerHarness h = cluster();
        h.scheduler.upsertPod(web("n0"));
        h.scheduler.deletePod("web"); // its room taken by another scheduler's pod
        h.scheduler.upsertPod(pod("other-3").requests("1", "1Gi").priority(0).on("n0").build().asInCluster("default-scheduler", false));
        bigArrives(h);

        assertThat(h.scheduler.preemptionAdvice(big)).isInstanceOf(PreemptionAdvice.CannotRun.class);
    }

    @Test
    void aSinglePodSeenFirstWithoutItsSchedulerIsFiledAgainOnceItsObservationNamesIt() {
        SchedulerHarness h = cluster();
        // first known from a verb (no scheduler named), then shown by the cluster as default-scheduler's
        h.scheduler.upsertPod(pod("web").requests("1", "1Gi").priority(0).on("n0").build());
        h.scheduler.upsertPod(pod("web").requests("1", "1Gi").priority(0).on("n0").build().asInCluster("default-scheduler", false));
        bigArrives(h);

        assertThat(h.scheduler.preemptionAdvice(big)).as("web is another scheduler's: nothing may be taken")
                .isInstanceOf(PreemptionAdvice.CannotRun.class);
    }
}
