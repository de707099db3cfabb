package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Topology-aware gangs on the real control plane: the 8 nodes × 4 cpu are labelled into two racks of 4 nodes (16 cpu
 * each), the extender runs with {@code --topology-levels=e2e.muster.dev/rack,kubernetes.io/hostname}, and gangs ask
 * for a rack with the PodGroup annotation {@code muster.dev/topology}.
 */
class TopologyE2eTest extends RealClusterTest {
    private static final String RACK = E2eCluster.RACK_LABEL;

    static String rackOf(String node) {
        return Integer.parseInt(node.substring("node-".length())) < E2eCluster.NODES / 2 ? "rack-a" : "rack-b";
    }

    @BeforeEach
    void labelNodesIntoRacks() {
        for (int i = 0; i < E2eCluster.NODES; i++) {
            c.admin.labelNode("node-" + i, RACK, rackOf("node-" + i));
        }
    }

    @AfterEach
    void unlabelNodes() {
        for (int i = 0; i < E2eCluster.NODES; i++) {
            c.admin.labelNode("node-" + i, RACK, null);
        }
    }

    /**
     * 2 cpu taken on each of node-0..2: rack-a keeps room for 5 members of 2 cpu, rack-b for 8. Binpack alone would
     * fill rack-a's half-used nodes first and spill the sixth member into rack-b.
     */
    private void halfFillRackA() {
        for (int i = 0; i < 3; i++) {
            c.admin.pod(ns, "hog-" + i, null, "2", "1Gi", Kube.SCHEDULER_NAME, "node-" + i);
        }
        Awaitility.await("muster sees the pods in rack-a").atMost(Duration.ofSeconds(30))
                .until(() -> c.extender.gauge("muster_ledger_pods") == 3);
    }

    @Test
    void aRequiredRackGangIsBoundInsideOneRack() {
        halfFillRackA();
        c.admin.podGroup(ns, "fit", 6, "default", Map.of("muster.dev/topology", "required:" + RACK));
        c.admin.members(ns, "fit", 0, 6, "2", "1Gi"); // 12 cpu: only rack-b holds it whole
        c.awaitBound(ns, "fit-", 6, System.nanoTime());
        Map<String, String> bound = c.admin.bound(ns, "fit-");
        assertThat(bound.values()).as("nodes of the gang").allMatch(n -> rackOf(n).equals("rack-b"));
        Awaitility.await("scheduled").atMost(Duration.ofSeconds(30))
                .until(() -> c.conditions(ns, "fit").stream().anyMatch(s -> s.startsWith("Scheduled=True")));
        assertThat(c.cpuPerNode().values()).allMatch(m -> m <= 4000);
    }

    @Test
    void aVolcanoNetworkTopologyTierOneGangIsBoundInsideOneRack() {
        // levels rack > hostname: tier 1 is the rack (a hostname level is no Volcano tier)
        halfFillRackA();
        c.admin.podGroup(ns, "tier", 6, "default", Map.of(), Map.of("networkTopology", Map.of("mode", "hard", "highestTierAllowed", 1)));
        c.admin.members(ns, "tier", 0, 6, "2", "1Gi");
        c.awaitBound(ns, "tier-", 6, System.nanoTime());
        assertThat(c.admin.bound(ns, "tier-").values()).as("nodes of the gang").allMatch(n -> rackOf(n).equals("rack-b"));
    }

    @Test
    void aGangThatFitsNoSingleRackWaitsWithAReasonAlthoughTheClusterHasRoom() {
        c.admin.podGroup(ns, "wide", 10, "default", Map.of("muster.dev/topology", "required:" + RACK));
        c.admin.members(ns, "wide", 0, 10, "2", "1Gi"); // 20 cpu: no rack of 16 holds it, the 32-cpu cluster would
        c.staysBound(ns, "wide-", 0, Duration.ofSeconds(8));
        String why = "gang " + ns + "/wide: required topology " + RACK + ": no single domain has room; best rack-a fits 8 of 10 members"
                + " (needs 10×(2 cpu, 1Gi memory), fits 8); the cluster as a whole has room for them";
        Awaitility.await("the reason in the PodGroup's conditions").atMost(Duration.ofSeconds(50))
                .until(() -> c.conditions(ns, "wide").stream().anyMatch(s -> s.startsWith("Unschedulable=True NotEnoughResources") && s.contains(why)));
        Awaitility.await("the reason in a member's events").atMost(Duration.ofSeconds(50)).pollInterval(Duration.ofMillis(500))
                .until(() -> c.admin.events(ns, "wide-0").stream().anyMatch(e -> e.startsWith("FailedScheduling") && e.contains("required topology " + RACK)));
        assertThat(c.admin.bound(ns, "wide-")).isEmpty();
        assertThat(c.extender.gauge("muster_reservations")).isZero();
    }
}
