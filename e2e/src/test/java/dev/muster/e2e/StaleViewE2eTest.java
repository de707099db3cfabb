package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * kube-scheduler may act on a cluster event before Muster's informer has applied it. A member Muster refused then, on
 * its stale view, would wait for a retry no further event brings: Muster passes it instead and holds its bind until
 * its view catches up.
 */
class StaleViewE2eTest extends RealClusterTest {
    @Test
    void gangBlockedByAnOvercommittedNodeBindsPromptlyOnceTheNodeIsRestored() {
        // room for 2 of the gang's 3 members (node-0, node-1); node-3 (5 cpu, 3 used) would take the third, but its
        // allocatable shrinks below use: overcommitted, it takes nothing new
        c.admin.allocatable("node-3", "5", E2eCluster.NODE_MEMORY);
        for (int i = 0; i < E2eCluster.NODES; i++) {
            String cpu = i == 0 || i == 1 ? "2" : i == 3 ? "3" : "4";
            c.admin.pod(ns, "hog-" + i, null, cpu, "1Gi", "default-scheduler", "node-" + i);
        }
        c.admin.allocatable("node-3", "2500m", E2eCluster.NODE_MEMORY);
        try {
            c.admin.podGroup(ns, "m3", 3, "default", Map.of());
            c.admin.members(ns, "m3", 0, 3, "2", "1Gi");
            Awaitility.await("the gang refused: fits 2, node-3 overcommitted").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .conditionEvaluationListener(e -> {
                        if (e.getRemainingTimeInMS() < 300) {
                            System.out.println("e2e: m3 conditions " + c.conditions(ns, "m3") + "; events " + c.admin.events(ns, "m3-2"));
                        }
                    })
                    .until(() -> c.conditions(ns, "m3").stream().anyMatch(s -> s.contains("fits 2") && s.contains("overcommitted")));
            Awaitility.await("members' binds held").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> c.extender.gauge("muster_held_binds") >= 1);
            assertThat(c.admin.bound(ns, "m3-")).isEmpty();

            long restored = System.nanoTime();
            c.admin.allocatable("node-3", "5", E2eCluster.NODE_MEMORY);
            // well inside the gang's 60 s deadline: a member parked on a stale refusal would wait for that deadline
            Awaitility.await("all 3 members bound").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(50))
                    .until(() -> c.admin.bound(ns, "m3-").size() == 3);
            System.out.printf("e2e: gang blocked by an overcommitted node: all 3 bound %.2f s after the node was restored%n",
                    (System.nanoTime() - restored) / 1e9);
            c.cpuPerNode().forEach((n, m) -> assertThat(m).as(n).isLessThanOrEqualTo(n.equals("node-3") ? 5000 : 4000));
        } finally {
            c.admin.allocatable("node-3", E2eCluster.NODE_CPU, E2eCluster.NODE_MEMORY);
        }
    }
}
