package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1NodeAffinity;
import io.kubernetes.client.openapi.models.V1NodeSelectorRequirement;
import io.kubernetes.client.openapi.models.V1NodeSelectorTerm;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PreferredSchedulingTerm;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Muster picks a single pod's node in filter (the extender's default {@code --pick-node}): the real kube-scheduler,
 * left with one feasible node, binds the pod there; a pod with a preferred node affinity passes on every node that
 * fits, and kube-scheduler's own scoring honours the preference.
 */
class NodePickE2eTest extends RealClusterTest {
    @Test
    void singlePodsArePackedOnThePickedNodeAndAPreferenceIsLeftToKubeScheduler() {
        long t = System.nanoTime();
        c.admin.pod(ns, "p0", null, "1", "1Gi");
        c.awaitBound(ns, "p0", 1, t);
        String packed = c.admin.bound(ns, "p0").get("p0");
        for (int i = 1; i <= 2; i++) { // one after the other: each sees the previous one's room taken
            t = System.nanoTime();
            c.admin.pod(ns, "p" + i, null, "1", "1Gi");
            double s = c.awaitBound(ns, "p" + i, 1, t);
            System.out.printf("e2e: single pod p%d on the picked node %.2f s after it was created%n", i, s);
        }
        assertThat(c.admin.bound(ns, "p")).as("binpack: the fullest node that fits").containsOnly(
                Map.entry("p0", packed), Map.entry("p1", packed), Map.entry("p2", packed));

        String preferred = packed.equals("node-5") ? "node-6" : "node-5";
        t = System.nanoTime();
        createPreferring(preferred);
        c.awaitBound(ns, "soft", 1, t);
        assertThat(c.admin.bound(ns, "soft")).containsEntry("soft", preferred);
    }

    private void createPreferring(String node) {
        V1Pod pod = new V1Pod().metadata(new V1ObjectMeta().name("soft").namespace(ns))
                .spec(new V1PodSpec().schedulerName(Kube.SCHEDULER_NAME).terminationGracePeriodSeconds(0L).overhead(null)
                        .affinity(new V1Affinity().nodeAffinity(new V1NodeAffinity().addPreferredDuringSchedulingIgnoredDuringExecutionItem(
                                new V1PreferredSchedulingTerm().weight(100).preference(new V1NodeSelectorTerm().addMatchExpressionsItem(
                                        new V1NodeSelectorRequirement().key("kubernetes.io/hostname").operator("In").values(List.of(node)))))))
                        .containers(List.of(new V1Container().name("main").image("registry.example/job:1")
                                .resources(new V1ResourceRequirements().requests(Map.of("cpu", new Quantity("1"), "memory", new Quantity("1Gi")))))));
        Kube.call("create pod " + ns + "/soft", () -> c.admin.core().createNamespacedPod(ns, pod).execute());
    }
}
