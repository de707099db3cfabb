package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A gang submitted as a batch/v1 Job whose pod template joins a Volcano PodGroup: the Job controller creates the
 * members at its own pace and replaces the ones that fail or are deleted, hollow kubelets run and terminate them.
 */
class JobGangE2eTest extends ControllersClusterTest {
    private static final Workloads.PodTemplate SMALL = new Workloads.PodTemplate("train", "100m", "64Mi", 1);

    @Test
    void anIndexedJobJoinedToAPodGroupIsBoundWholeRunsAndCompletes() throws InterruptedException {
        c.admin.podGroup(ns, "train", 8, queue, Map.of());
        long t0 = System.nanoTime();
        c.workloads.indexedJob(ns, "train", 8, SMALL, false);
        awaitRunning("job=train", 8);
        System.out.printf("e2e: a Job's gang of 8 bound and Running on hollow kubelets %.1f s after the Job was created%n",
                (System.nanoTime() - t0) / 1e9);
        awaitGangRunning("train", 8, 800);

        // A hollow kubelet's containers never exit, and a live kubelet overwrites any phase written for its pods. So the
        // kubelets of the members' nodes are stopped, the test reports every member Succeeded as they would for a
        // container that exited 0, and the kubelets are started again (they keep a phase that is terminal in the API).
        List<HollowNode> hosts = c.admin.pods(ns, "job=train").stream().map(p -> p.getSpec().getNodeName()).distinct().map(c::node).toList();
        for (HollowNode h : hosts) {
            h.stop();
        }
        try {
            for (V1Pod p : c.admin.pods(ns, "job=train")) {
                c.admin.phase(ns, p.getMetadata().getName(), "Succeeded");
            }
            Awaitility.await("Job complete, PodGroup Completed, Queue back to zero").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200)).until(() -> jobCondition("train", "Complete") && "Completed".equals(c.phase(ns, "train"))
                            && c.allocatedCpuMillis(queue) == 0 && c.queueCount(queue, "running") == 0);
            assertThat(c.podGroupCount(ns, "train", "succeeded")).isEqualTo(8);
            assertThat(c.ledgerMatchesCluster()).isTrue();
        } finally {
            for (HollowNode h : hosts) {
                h.restart();
            }
        }
    }

    @Test
    void aMemberThatFailsIsReplacedJoinsTheRunningGangAndNothingElseMoves() {
        c.admin.podGroup(ns, "train", 8, queue, Map.of());
        c.workloads.indexedJob(ns, "train", 8, SMALL, false);
        awaitRunning("job=train", 8);
        awaitGangRunning("train", 8, 800);
        List<V1Pod> before = c.admin.pods(ns, "job=train");
        V1Pod failing = before.get(0);
        Map<String, String> rest = before.subList(1, 8).stream()
                .collect(Collectors.toMap(p -> p.getMetadata().getUid(), p -> p.getSpec().getNodeName()));

        long t0 = System.nanoTime();
        c.admin.activeDeadline(ns, failing.getMetadata().getName(), 1); // its kubelet kills it and reports it Failed (DeadlineExceeded)
        Awaitility.await("the failed member replaced, Running; the PodGroup counts 8 running and 1 failed").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100)).until(() -> running("job=train") == 8 && c.podGroupCount(ns, "train", "failed") == 1
                        && c.podGroupCount(ns, "train", "running") == 8 && "Running".equals(c.phase(ns, "train")));
        System.out.printf("e2e: a failed member of a running Job gang replaced and Running in %.1f s%n", (System.nanoTime() - t0) / 1e9);

        Map<String, String> restAfter = c.admin.pods(ns, "job=train").stream().filter(p -> rest.containsKey(p.getMetadata().getUid()))
                .filter(p -> "Running".equals(p.getStatus().getPhase()))
                .collect(Collectors.toMap(p -> p.getMetadata().getUid(), p -> p.getSpec().getNodeName()));
        assertThat(restAfter).as("the seven untouched members: same pods, same nodes, still Running").isEqualTo(rest);
        Awaitility.await("Queue allocated = what is bound (8 × 100m)").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> c.allocatedCpuMillis(queue) == 800 && c.ledgerMatchesCluster());
    }

    @Test
    void aSuspendedJobReservesNothingResumedItIsScheduledWholeSuspendedAgainItGivesEverythingBack() {
        c.admin.podGroup(ns, "train", 8, queue, Map.of());
        c.workloads.indexedJob(ns, "train", 8, SMALL, true);
        Awaitility.await("a suspended Job: no pod, nothing reserved or allocated").during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(250)).until(() -> c.admin.pods(ns, "job=train").isEmpty() && c.extender.gauge("muster_reservations") == 0
                        && c.musterHeldCpuMillis(queue) == 0 && c.allocatedCpuMillis(queue) == 0);

        long t0 = System.nanoTime();
        c.workloads.suspend(ns, "train", false);
        awaitRunning("job=train", 8);
        System.out.printf("e2e: a resumed Job's gang of 8 bound and Running in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        awaitGangRunning("train", 8, 800);

        c.workloads.suspend(ns, "train", true); // the Job controller deletes its pods; their kubelets terminate them
        Awaitility.await("suspended again: pods gone, Queue back to zero").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                .until(() -> c.admin.pods(ns, "job=train").isEmpty() && c.allocatedCpuMillis(queue) == 0 && c.musterHeldCpuMillis(queue) == 0
                        && c.extender.gauge("muster_reservations") == 0 && c.ledgerMatchesCluster());
    }

    private void awaitRunning(String selector, int count) {
        c.awaitRunning(ns, selector, count);
    }

    private long running(String selector) {
        return c.running(ns, selector);
    }

    private void awaitGangRunning(String podGroup, int members, long cpuMillis) {
        c.awaitGangRunning(ns, podGroup, queue, members, cpuMillis);
    }

    private boolean jobCondition(String job, String type) {
        return c.jobCondition(ns, job, type);
    }
}
