package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** A gang submitted as a batch/v1 Job: the Job controller creates the members, hollow kubelets run them. */
class JobGangE2eTest extends ControllersClusterTest {
    @Test
    void anIndexedJobJoinedToAPodGroupIsBoundWholeRunsAndCompletes() {
        c.admin.podGroup(ns, "train", 8, queue, Map.of());
        long t0 = System.nanoTime();
        c.workloads.indexedJob(ns, "train", 8, new Workloads.PodTemplate("train", "100m", "64Mi", 1), false);
        Awaitility.await("8 members Running").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(100))
                .until(() -> running(ns, "job=train") == 8);
        System.out.printf("e2e: a Job's gang of 8 bound and Running on hollow kubelets %.1f s after the Job was created%n",
                (System.nanoTime() - t0) / 1e9);
        Awaitility.await("PodGroup Running with 8, Queue running 1 with 800m allocated").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).until(() -> "Running".equals(c.phase(ns, "train"))
                        && c.podGroupCount(ns, "train", "running") == 8 && c.queueCount(queue, "running") == 1
                        && c.allocatedCpuMillis(queue) == 800);

        for (V1Pod p : c.admin.pods(ns, "job=train")) {
            c.admin.phase(ns, p.getMetadata().getName(), "Succeeded");
        }
        Awaitility.await("Job complete, PodGroup Completed, Queue back to zero").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200)).until(() -> jobComplete(ns, "train") && "Completed".equals(c.phase(ns, "train"))
                        && c.allocatedCpuMillis(queue) == 0 && c.queueCount(queue, "running") == 0);
        assertThat(c.podGroupCount(ns, "train", "succeeded")).isEqualTo(8);
        assertThat(c.ledgerMatchesCluster()).isTrue();
    }

    private long running(String ns, String selector) {
        List<V1Pod> pods = c.admin.pods(ns, selector);
        return pods.stream().filter(p -> p.getSpec().getNodeName() != null && p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
    }

    @SuppressWarnings("unchecked")
    private boolean jobComplete(String ns, String name) {
        Object conditions = Workloads.field(c.workloads.job(ns, name), "status", "conditions");
        return conditions instanceof List<?> l && l.stream().anyMatch(o -> o instanceof Map<?, ?> m
                && "Complete".equals(m.get("type")) && "True".equals(m.get("status")));
    }
}
