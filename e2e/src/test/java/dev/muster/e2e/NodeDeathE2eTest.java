package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.PatchUtils;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A node dies under a running gang: its kubelet's process is killed, kube-controller-manager marks the node
 * NotReady and evicts its pods, the Job controller replaces them, Muster places the replacements elsewhere, and its
 * books match the cluster afterwards.
 */
class NodeDeathE2eTest extends ControllersClusterTest {
    private static final String OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

    @Test
    void aGangAcrossADeadNodeIsReportedShortItsReplacementsArePlacedElsewhereAndTheBooksMatch() throws InterruptedException {
        c.admin.podGroup(ns, "train", 8, queue, Map.of());
        c.workloads.indexedJob(ns, "train", 8, new Workloads.PodTemplate("train", "250m", "64Mi", 1), false);
        c.awaitRunning(ns, "job=train", 8);
        c.awaitGangRunning(ns, "train", queue, 8, 2000);
        Map<String, Long> perNode = c.admin.pods(ns, "job=train").stream()
                .collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(), TreeMap::new, Collectors.counting()));
        String victim = perNode.keySet().iterator().next();
        int lost = perNode.get(victim).intValue();
        // fill every other node (pods placed there directly): the replacements have nowhere to go until the fillers leave
        List<String> others = c.nodes.stream().map(HollowNode::name)
                .filter(n -> !n.equals(victim) && HollowNode.CPU_MILLIS > 250 * perNode.getOrDefault(n, 0L)).toList();
        for (int i = 0; i < others.size(); i++) {
            long free = HollowNode.CPU_MILLIS - 250 * perNode.getOrDefault(others.get(i), 0L);
            c.admin.pod(ns, "filler-" + i, null, free + "m", "64Mi", Kube.SCHEDULER_NAME, others.get(i));
        }
        c.awaitRunning(ns, "", 8 + others.size());
        System.out.printf("e2e: gang members per node %s; killing the kubelet of %s%n", perNode, victim);

        HollowNode dead = c.node(victim);
        long t0 = System.nanoTime();
        dead.stop();
        try {
            Awaitility.await(victim + " NotReady").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(250))
                    .until(() -> !dead.ready(c.admin));
            double notReady = (System.nanoTime() - t0) / 1e9;
            Awaitility.await("its " + lost + " members evicted, the PodGroup reports " + (8 - lost) + " running")
                    .atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250)).until(() -> onNode(victim).stream()
                            .filter(p -> p.getMetadata().getDeletionTimestamp() != null).count() == lost
                            && c.podGroupCount(ns, "train", "running") == 8 - lost);
            double evicted = (System.nanoTime() - t0) / 1e9;
            Awaitility.await("the gang stays short while there is no room").during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(15))
                    .pollInterval(Duration.ofMillis(250)).until(() -> c.podGroupCount(ns, "train", "running") == 8 - lost
                            && !"Running".equals(c.phase(ns, "train")));

            for (int i = 0; i < others.size(); i++) {
                c.admin.deleteNow(ns, "filler-" + i);
            }
            long t1 = System.nanoTime();
            Awaitility.await("8 members Running again").atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250))
                    .until(() -> c.running(ns, "job=train") == 8);
            double replaced = (System.nanoTime() - t1) / 1e9;
            assertThat(c.admin.pods(ns, "job=train").stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                    .map(p -> p.getSpec().getNodeName())).as("replacements placed elsewhere").doesNotContain(victim);
            Awaitility.await("the PodGroup Running with 8 again").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                    .until(() -> "Running".equals(c.phase(ns, "train")) && c.podGroupCount(ns, "train", "running") == 8);
            System.out.printf("e2e: node death: NotReady %.1f s after its kubelet was killed, its %d members evicted at %.1f s; "
                    + "replacements Running %.1f s after room was made%n", notReady, lost, evicted, replaced);

            // the evicted pods stay (terminating) on the dead node as long as it exists — kube-scheduler and Muster both
            // count them there; the operator's out-of-service taint lets the pod GC remove them
            taint(victim, OUT_OF_SERVICE + "=nodeshutdown:NoExecute");
            Awaitility.await("nothing left on " + victim + "; Muster's ledger holds exactly the bound pods").atMost(Duration.ofSeconds(90))
                    .pollInterval(Duration.ofMillis(500)).until(() -> onNode(victim).isEmpty() && c.ledgerMatchesCluster()
                            && c.musterHeldCpuMillis(queue) == 2000 && c.extender.gauge("muster_reservations") == 0
                            && c.allocatedCpuMillis(queue) == 2000);
            System.out.printf("e2e: node death: evicted pods removed by the pod GC and Muster's books match the cluster %.1f s after "
                    + "the kubelet was killed%n", (System.nanoTime() - t0) / 1e9);
        } finally {
            taint(victim, null);
            dead.restart();
            dead.awaitReady(c.admin, Duration.ofSeconds(90));
        }
    }

    private List<V1Pod> onNode(String node) {
        return c.admin.pods(ns).stream().filter(p -> node.equals(p.getSpec().getNodeName())).toList();
    }

    /** Adds the taint {@code key=value:Effect} to the node, or with null removes {@link #OUT_OF_SERVICE}. */
    private void taint(String node, String taint) {
        V1Node n = Kube.call("read node", () -> c.admin.core().readNode(node).execute());
        List<Map<String, String>> taints = new java.util.ArrayList<>();
        if (n.getSpec().getTaints() != null) {
            n.getSpec().getTaints().stream().filter(t -> !OUT_OF_SERVICE.equals(t.getKey()))
                    .forEach(t -> taints.add(Map.of("key", t.getKey(), "value", t.getValue() == null ? "" : t.getValue(), "effect", t.getEffect())));
        }
        if (taint != null) {
            String[] kv = taint.split("[=:]");
            taints.add(Map.of("key", kv[0], "value", kv[1], "effect", kv[2]));
        }
        String body = new com.google.gson.Gson().toJson(Map.of("spec", Map.of("taints", taints)));
        Kube.call("taint node " + node, () -> PatchUtils.patch(V1Node.class,
                () -> c.admin.core().patchNode(node, new V1Patch(body)).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, c.cp.adminClient()));
    }
}
