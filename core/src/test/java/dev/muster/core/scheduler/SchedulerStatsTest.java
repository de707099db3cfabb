package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodPhase;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The gauges are read from the books, so they agree with each other. */
class SchedulerStatsTest {
    @Test
    void aGangWhoseMembersAreAllDeletedWhileReservedIsNoLongerCountedReserved() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
        List<Pod> ms = List.of(pod("g-0").gang("g").requests("1", "1Gi").build(), pod("g-1").gang("g").requests("1", "1Gi").build());
        ms.forEach(h.scheduler::upsertPod);
        h.scheduler.filter(ms.getFirst(), h.nodeNames);
        assertThat(h.scheduler.stats().gangsByState()).containsEntry(GangState.RESERVED, 1);
        assertThat(h.scheduler.stats().reservations()).isEqualTo(1);

        ms.forEach(p -> h.scheduler.deletePod(p.uid())); // the job was deleted; its PodGroup stays

        SchedulerStats s = h.scheduler.stats();
        assertThat(s.reservations()).isZero();
        assertThat(s.gangsByState()).doesNotContainKey(GangState.RESERVED);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangWhoseRunFinishedIsIdleNotWaiting() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "g", 1, "default"));
        Pod m = pod("g-0").gang("g").requests("1", "1Gi").build();
        h.scheduler.upsertPod(m);
        assertThat(h.schedule(m).join().ok()).isTrue();
        h.scheduler.upsertPod(m.withNode(h.binder.boundNode(m.uid())).withPhase(PodPhase.SUCCEEDED)); // the job completed

        SchedulerStats s = h.scheduler.stats();
        assertThat(s.gangsByState()).doesNotContainKey(GangState.WAITING);
        assertThat(s.idleGangs()).isEqualTo(1);
    }
}
