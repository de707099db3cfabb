package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Muster refuses a pod at filter on room another gang's reservation holds. When kube-scheduler's own plugins also
 * rejected the pod (the other nodes are full), kube-scheduler parks it until a cluster event it acts on. A reservation
 * that ends at its gang's deadline produces no such event by itself; what wakes the parked pod is the reserved
 * members' binds, which Muster fails at the deadline: kube-scheduler treats a failed bind of a pod it had assumed as
 * that pod's delete and moves its parked pods back to be retried.
 */
class ReservationEndE2eTest extends RealClusterTest {
    @Test
    void podRefusedOnAReservationBindsPromptlyOnceTheReservationsDeadlinePasses() {
        // 5 nodes full; the gang of 3 whole nodes gets 2 members: the first one's filter reserves the 3 free nodes, both
        // binds wait for the third member, which never comes
        for (int i = 3; i < E2eCluster.NODES; i++) {
            c.admin.pod(ns, "hog-" + i, null, "4", "1Gi", "default-scheduler", "node-" + i);
        }
        c.admin.podGroup(ns, "held", 3, "default", Map.of("muster.dev/gang-deadline", "20s"));
        c.admin.members(ns, "held", 0, 2, "4", "1Gi");
        Awaitility.await("both members' binds waiting").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> c.extender.gauge("muster_waiting_binds") == 2);
        // the reserved third node is free in kube-scheduler's view, reserved in Muster's; the rest are full
        c.admin.pod(ns, "web", null, "1", "1Gi");
        String refusal = "reserved for gangs";
        Awaitility.await("web refused on the reservation").atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(100))
                .until(() -> c.admin.events(ns, "web").stream().anyMatch(e -> e.contains(refusal)));
        assertThat(c.admin.bound(ns, "web")).isEmpty();
        assertThat(c.extender.gauge("muster_waiting_binds")).isEqualTo(2);

        Awaitility.await("the deadline fails the waiting binds").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(20))
                .until(() -> c.extender.gauge("muster_waiting_binds") == 0);
        long ended = System.nanoTime();
        double refusals = unfitFilters();
        // generous, yet far below kube-scheduler's 5-minute flush of parked pods
        Awaitility.await("web bound").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> c.admin.bound(ns, "web").size() == 1);
        System.out.printf("e2e: pod refused on a reservation (%.0f refusals while it held): bound %.2f s after the reservation's"
                + " deadline failed its waiting binds%n", refusals, (System.nanoTime() - ended) / 1e9);
        assertThat(c.admin.bound(ns, "held-")).isEmpty();
        c.cpuPerNode().forEach((n, m) -> assertThat(m).as(n).isLessThanOrEqualTo(4000));
    }

    /** How often Muster's filter turned a pod away on every node (here only the single pod is turned away). */
    private double unfitFilters() {
        return c.extender.metrics().lines().filter(l -> l.startsWith("muster_extender_decisions_total{")
                        && l.contains("verb=\"filter\"") && l.contains("outcome=\"unfit\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
