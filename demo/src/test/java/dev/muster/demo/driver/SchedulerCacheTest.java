package dev.muster.demo.driver;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.req;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.demo.cluster.ClusterPod;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SchedulerCacheTest {
    private final SchedulerCache cache = new SchedulerCache();

    @BeforeEach
    void nodes() {
        for (int i = 1; i <= 4; i++) {
            cache.addNode(node("node-" + i, "4", "16Gi"));
        }
    }

    private static ClusterPod bound(String name, String node, String cpu) {
        ClusterPod p = ClusterPod.created(new PodId("uid-" + name, "ns", name), res(cpu, "1Gi"), null, "muster", 0, null, 0);
        return new ClusterPod(p.id(), 2, p.requests(), null, "muster", 0, null, node, PodPhase.RUNNING, 0, 1, 1, -1);
    }

    @Test
    void boundAndAssumedPodsTakeRoomAndAFinishedPodFreesIt() {
        cache.observe(bound("a", "node-1", "3"));
        cache.assume("uid-b", "node-2", req("3", "1Gi"));

        SchedulerCache.Fit fit = cache.feasible(req("2", "1Gi"), 10);
        assertThat(fit.nodes()).containsExactlyInAnyOrder("node-3", "node-4");

        ClusterPod a = bound("a", "node-1", "3");
        boolean freed = cache.observe(new ClusterPod(a.id(), 3, a.requests(), null, "muster", 0, null, "node-1", PodPhase.SUCCEEDED, 0, 1, 1, 5));
        assertThat(freed).isTrue();
        cache.forget("uid-b");
        assertThat(cache.feasible(req("2", "1Gi"), 10).nodes()).hasSize(4);
    }

    @Test
    void anAssumedPodSeenBoundIsCountedOnce() {
        cache.assume("uid-a", "node-1", req("3", "1Gi"));
        cache.observe(bound("a", "node-1", "3"));

        assertThat(cache.assumedCount()).isZero();
        assertThat(cache.feasible(req("1", "1Gi"), 10).nodes()).contains("node-1");
        assertThat(cache.feasible(req("2", "1Gi"), 10).nodes()).doesNotContain("node-1");
    }

    @Test
    void theScanStopsAtTheLimitAndTheNextOneStartsWhereItStopped() {
        assertThat(cache.feasible(req("1", "1Gi"), 2).nodes()).containsExactly("node-1", "node-2");
        assertThat(cache.feasible(req("1", "1Gi"), 2).nodes()).containsExactly("node-3", "node-4");
        assertThat(cache.feasible(req("1", "1Gi"), 3).nodes()).containsExactly("node-1", "node-2", "node-3");
    }

    @Test
    void whenNoNodeFitsTheReasonCountsWhatIsShort() {
        SchedulerCache.Fit fit = cache.feasible(req("8", "32Gi"), 10);

        assertThat(fit.nodes()).isEmpty();
        assertThat(fit.reason()).isEqualTo("0/4 nodes are available: 4 Insufficient cpu, 4 Insufficient memory.");
    }
}
