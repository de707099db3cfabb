package dev.muster.demo.cluster;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.server.ServerDefaults;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The embedded Eviction API: the pod goes, its controller's replacement comes, and the log says when and why. */
class ClusterEvictorTest {
    private final AtomicLong now = new AtomicLong(7_000_000_000L);
    private final EmbeddedCluster cluster = new EmbeddedCluster(now::get);

    @Test
    void aRunningMemberIsDeletedAndReplacedByAPendingPodOfTheSameGangShapeAndRunTime() throws Exception {
        cluster.applyNode(node("node-1", "8", "32Gi"));
        GangKey gang = new GangKey("ml", "train-1");
        cluster.createPodGroup(podGroup("ml", "train-1", 1, "research"));
        PodId id = new PodId("uid-1", "ml", "train-1-0");
        cluster.createPod(id, res("2", "4Gi"), gang, ServerDefaults.SCHEDULER_NAME, 5, Duration.ofMinutes(3));
        cluster.bind(id, "node-1");
        cluster.startPod("uid-1");

        try (ClusterEvictor evictor = new ClusterEvictor(cluster, now::get)) {
            EvictionOutcome outcome = evictor.evict(id, "for gang ml/urgent-1").toCompletableFuture().get(10, TimeUnit.SECONDS);

            assertThat(outcome).isInstanceOf(EvictionOutcome.Evicted.class);
            assertThat(cluster.pod("uid-1")).as("the evicted pod is gone").isNull();
            ClusterPod replacement = cluster.pod("uid-1-r1");
            assertThat(replacement.id()).isEqualTo(new PodId("uid-1-r1", "ml", "train-1-0-r1"));
            assertThat(replacement.isPending()).isTrue();
            assertThat(replacement.gang()).isEqualTo(gang);
            assertThat(replacement.requests()).isEqualTo(res("2", "4Gi"));
            assertThat(replacement.priority()).isEqualTo(5);
            assertThat(replacement.runFor()).isEqualTo(Duration.ofMinutes(3));
            assertThat(replacement.schedulerName()).isEqualTo(ServerDefaults.SCHEDULER_NAME);
            assertThat(cluster.usage().used().isZero()).as("its room is free").isTrue();
            assertThat(evictor.evictions()).containsExactly(
                    new ClusterEvictor.Eviction(7_000_000_000L, id, gang, "node-1", replacement.id(), "for gang ml/urgent-1"));

            // evicted again (a retry): the pod is gone, and nothing more is created
            assertThat(evictor.evict(id, "again").toCompletableFuture().get(10, TimeUnit.SECONDS)).isInstanceOf(EvictionOutcome.Gone.class);
            assertThat(cluster.pods()).hasSize(1);
        }
    }

    @Test
    void aPodThatHoldsNoRoomIsGoneAndTheDryRunAlwaysPassesForTheClusterHasNoBudgets() throws Exception {
        PodId pending = new PodId("uid-2", "apps", "web-1");
        cluster.createPod(pending, res("1", "1Gi"), null, ServerDefaults.SCHEDULER_NAME, 0, null);
        try (ClusterEvictor evictor = new ClusterEvictor(cluster, now::get)) {
            assertThat(evictor.check(pending).toCompletableFuture().get(10, TimeUnit.SECONDS)).isInstanceOf(EvictionOutcome.Evicted.class);
            assertThat(evictor.evict(pending, "x").toCompletableFuture().get(10, TimeUnit.SECONDS)).isInstanceOf(EvictionOutcome.Gone.class);
            assertThat(cluster.pod("uid-2")).as("a pending pod is not evicted").isNotNull();
            assertThat(evictor.evictions()).isEmpty();
        }
    }

    @Test
    void aReplacementOfAReplacementKeepsOneSuffix() throws Exception {
        cluster.applyNode(node("node-1", "8", "32Gi"));
        PodId id = new PodId("u", "apps", "web-1");
        cluster.createPod(id, res("1", "1Gi"), null, ServerDefaults.SCHEDULER_NAME, 0, null);
        cluster.bind(id, "node-1");
        try (ClusterEvictor evictor = new ClusterEvictor(cluster, now::get)) {
            evictor.evict(id, "a").toCompletableFuture().get(10, TimeUnit.SECONDS);
            PodId first = cluster.pod("u-r1").id();
            cluster.bind(first, "node-1");
            evictor.evict(first, "b").toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertThat(cluster.pods()).extracting(p -> p.id().name()).containsExactly("web-1-r2");
        }
    }
}
