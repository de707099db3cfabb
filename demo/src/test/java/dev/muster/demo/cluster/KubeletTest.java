package dev.muster.demo.cluster;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.demo.time.SimClock;
import dev.muster.demo.time.SimTimer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class KubeletTest {
    private final SimClock clock = new SimClock(1000);
    private final SimTimer timer = new SimTimer(clock, "test-sim-time");
    private final EmbeddedCluster cluster = new EmbeddedCluster(clock::nanos);
    private final Watch watch = cluster.watch("kubelet", new Kubelet(cluster, timer, Duration.ofSeconds(2)));

    @AfterEach
    void tearDown() {
        watch.close();
        timer.close();
    }

    @Test
    void aBoundPodStartsAfterStartupAndSucceedsAfterItsRunTime() {
        cluster.applyNode(node("node-1", "4", "8Gi"));
        PodId id = new PodId("u1", "ns", "p");
        cluster.createPod(id, res("1", "1Gi"), null, "muster", 0, Duration.ofSeconds(30));
        clock.resume();
        cluster.bind(id, "node-1");

        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.pod("u1").phase() == PodPhase.SUCCEEDED);
        ClusterPod p = cluster.pod("u1");
        assertThat(p.startedAt() - p.boundAt()).isGreaterThanOrEqualTo(Duration.ofSeconds(2).toNanos());
        assertThat(p.finishedAt() - p.startedAt()).isGreaterThanOrEqualTo(Duration.ofSeconds(30).toNanos());
    }

    @Test
    void nothingStartsWhileSimulatedTimeIsPaused() {
        cluster.applyNode(node("node-1", "4", "8Gi"));
        PodId id = new PodId("u1", "ns", "p");
        cluster.createPod(id, res("1", "1Gi"), null, "muster", 0, Duration.ofSeconds(30));
        cluster.bind(id, "node-1");

        await().atMost(Duration.ofSeconds(10)).until(() -> timer.pending() == 1);
        assertThat(cluster.pod("u1").phase()).isEqualTo(PodPhase.PENDING);
        clock.resume();
        await().atMost(Duration.ofSeconds(20)).until(() -> cluster.pod("u1").phase() == PodPhase.SUCCEEDED);
    }
}
