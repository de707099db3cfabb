package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Kubernetes' own route to a gang (1.36 alpha, {@code GenericWorkload} + {@code WorkloadWithJob} on the API server and
 * kube-controller-manager): for an Indexed Job the Job controller creates a Workload and a PodGroup
 * ({@code scheduling.k8s.io/v1alpha2}, gang of {@code parallelism}) and sets each pod's {@code spec.schedulingGroup};
 * Muster gang-schedules it with no annotation at all.
 */
class JobWorkloadE2eTest extends ControllersClusterTest {
    @Test
    void aPlainIndexedJobGetsAWorkloadAndPodGroupFromTheJobControllerAndIsScheduledAsAGang() {
        // 5 × 600m cannot be placed whole on 4 nodes of 1 cpu: none of it binds (kube-scheduler alone would bind 4)
        c.workloads.indexedJob(ns, "wide", 5, new Workloads.PodTemplate(null, "600m", "64Mi", 1), false);
        // 4 × 600m can: one per node, all at once
        long t0 = System.nanoTime();
        c.workloads.indexedJob(ns, "fits", 4, new Workloads.PodTemplate(null, "600m", "64Mi", 1), false);
        c.awaitRunning(ns, "job=fits", 4);
        System.out.printf("e2e: a plain Indexed Job of 4 (Workload and PodGroup from the Job controller) bound and Running %.1f s after "
                + "it was created%n", (System.nanoTime() - t0) / 1e9);
        assertThat(c.admin.pods(ns, "job=fits").stream().map(p -> p.getSpec().getNodeName()).collect(Collectors.toSet())).hasSize(4);

        List<Map<String, Object>> workloads = c.workloads.list(Kube.K8S_GROUP, Kube.K8S_VERSION, ns, "workloads");
        List<Map<String, Object>> podGroups = c.workloads.list(Kube.K8S_GROUP, Kube.K8S_VERSION, ns, "podgroups");
        System.out.printf("e2e: the Job controller created workloads %s%n and podgroups %s%n", workloads, podGroups);
        assertThat(workloads).hasSize(2);
        assertThat(podGroups).hasSize(2);
        Map<String, Object> fitsGroup = podGroupOf("fits", podGroups);
        assertThat(((Number) Workloads.field(fitsGroup, "spec", "schedulingPolicy", "gang", "minCount")).intValue()).isEqualTo(4);
        String fitsName = (String) Workloads.field(fitsGroup, "metadata", "name");
        assertThat(c.admin.pods(ns, "job=fits")).allSatisfy(p -> {
            assertThat(p.getSpec().getSchedulingGroup().getPodGroupName()).isEqualTo(fitsName);
            assertThat(p.getMetadata().getAnnotations()).doesNotContainKey(Workloads.GROUP_ANNOTATION);
        });
        Awaitility.await("Muster's controller reports the gang scheduled in the Job controller's PodGroup").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).until(() -> conditions(ns, fitsName).stream()
                        .anyMatch(s -> s.startsWith("PodGroupScheduled=True")));

        String wideName = (String) Workloads.field(podGroupOf("wide", podGroups), "metadata", "name");
        assertThat(c.admin.pods(ns, "job=wide")).hasSize(5).allSatisfy(p -> assertThat(p.getSpec().getNodeName()).isNull());
        Awaitility.await("the wide gang reported unschedulable").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> conditions(ns, wideName).stream().anyMatch(s -> s.startsWith("PodGroupScheduled=False")));
        c.admin.pods(ns, "job=wide").forEach(p -> assertThat(p.getSpec().getNodeName()).as("nothing of the wide gang is bound").isNull());
    }

    /** The PodGroup whose owner is Job {@code job}. */
    private static Map<String, Object> podGroupOf(String job, List<Map<String, Object>> podGroups) {
        return podGroups.stream().filter(pg -> Workloads.field(pg, "metadata", "ownerReferences") instanceof List<?> refs
                && refs.stream().anyMatch(r -> r instanceof Map<?, ?> m && "Job".equals(m.get("kind")) && job.equals(m.get("name"))))
                .findFirst().orElseThrow(() -> new AssertionError("no PodGroup owned by Job " + job + " in " + podGroups));
    }

    /** A Kubernetes PodGroup's status.conditions as "Type=Status Reason: message". */
    private List<String> conditions(String ns, String name) {
        Object cs = Workloads.field(c.workloads.get(Kube.K8S_GROUP, Kube.K8S_VERSION, ns, "podgroups", name), "status", "conditions");
        return cs instanceof List<?> l ? l.stream().map(o -> (Map<?, ?>) o)
                .map(m -> m.get("type") + "=" + m.get("status") + " " + m.get("reason") + ": " + m.get("message")).toList() : List.of();
    }
}
