package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Single pods at the pace of a Deployment scheduled by Muster's profile, and a PodDisruptionBudget's status computed
 * by the disruption controller.
 */
class DeploymentE2eTest extends ControllersClusterTest {
    private static final Workloads.PodTemplate TINY = new Workloads.PodTemplate(null, "20m", "32Mi", 1);

    @Test
    void aDeploymentOf20ScaledTo40AndBackTo5IsPlacedWholeAndSpread() {
        long t0 = System.nanoTime();
        c.workloads.deployment(ns, "web", 20, TINY);
        c.awaitRunning(ns, "app=web", 20);
        double twenty = (System.nanoTime() - t0) / 1e9;
        t0 = System.nanoTime();
        c.workloads.scale(ns, "web", 40);
        c.awaitRunning(ns, "app=web", 40);
        double forty = (System.nanoTime() - t0) / 1e9;
        Map<String, Long> perNode = c.admin.pods(ns, "app=web").stream()
                .collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(), TreeMap::new, Collectors.counting()));
        System.out.printf("e2e: a Deployment of 20 Running in %.1f s, scaled to 40 Running in %.1f s more; 40 pods per node %s%n",
                twenty, forty, perNode);
        // ReplicaSet pods carry kube-scheduler's default topology spreading (soft): Muster lets kube-scheduler score them,
        // so they spread over every node (Muster's own pick would pack all 40 × 20m onto one node)
        assertThat(perNode).as("40 pods on every node").hasSize(ControllersCluster.NODES);

        c.workloads.scale(ns, "web", 5);
        Awaitility.await("5 pods left, the rest terminated by their kubelets; Muster's ledger matches").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200)).until(() -> c.admin.pods(ns, "app=web").size() == 5 && c.running(ns, "app=web") == 5
                        && c.ledgerMatchesCluster());
    }

    @Test
    void aPodDisruptionBudgetsStatusIsComputed() {
        c.workloads.deployment(ns, "db", 5, TINY);
        c.workloads.podDisruptionBudget(ns, "db", Map.of("app", "db"), 3);
        c.awaitRunning(ns, "app=db", 5);
        Awaitility.await("the disruption controller's status: 5 healthy, 3 desired, 2 disruptions allowed").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).until(() -> {
                    var pdb = c.workloads.podDisruptionBudget(ns, "db");
                    return number(pdb, "currentHealthy") == 5 && number(pdb, "desiredHealthy") == 3 && number(pdb, "disruptionsAllowed") == 2
                            && number(pdb, "expectedPods") == 5;
                });
    }

    private static long number(Map<String, Object> object, String statusField) {
        Object v = Workloads.field(object, "status", statusField);
        return v instanceof Number n ? n.longValue() : -1;
    }
}
