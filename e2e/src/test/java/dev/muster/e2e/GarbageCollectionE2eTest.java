package dev.muster.e2e;

import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1PodAffinity;
import io.kubernetes.client.openapi.models.V1PodAffinityTerm;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Gangs removed by Kubernetes' garbage collector and namespace controller, not by the test: deleting a Job
 * (background and foreground propagation) or a whole namespace releases every reservation, held bind and waiting bind
 * of those gangs, and the Queue's {@code allocated} returns to what is really bound.
 */
class GarbageCollectionE2eTest extends ControllersClusterTest {
    private static final Workloads.PodTemplate SMALL = new Workloads.PodTemplate("run", "100m", "64Mi", 1);

    @Test
    void aRunningJobDeletedInTheBackgroundGivesEverythingBack() {
        c.admin.podGroup(ns, "run", 8, queue, Map.of());
        c.workloads.indexedJob(ns, "run", 8, SMALL, false);
        c.awaitRunning(ns, "job=run", 8);
        c.awaitGangRunning(ns, "run", queue, 8, 800);

        long t0 = System.nanoTime();
        c.workloads.deleteJob(ns, "run", "Background"); // the Job goes now; the garbage collector deletes its pods, kubelets terminate them
        awaitNothingHeld("job=run");
        System.out.printf("e2e: a running Job gang of 8 deleted (background): pods gone and Queue back to zero in %.1f s%n",
                (System.nanoTime() - t0) / 1e9);
    }

    @Test
    void aJobWhoseMembersWaitAtTheBarrierDeletedInTheForegroundReleasesTheWaitingBindsAndTheReservation() {
        // 9 members: the Job's 8 and a straggler that kube-scheduler cannot place, so the 8 binds wait. Its required pod
        // affinity names pods that do not exist: kube-scheduler's InterPodAffinity filter refuses every node, while Muster,
        // which leaves inter-pod affinity to kube-scheduler, plans the whole gang and reserves its room. (A nodeSelector no
        // node matches would not do: Muster judges it, finds the gang can never fit, and reserves nothing.)
        c.admin.podGroup(ns, "run", 9, queue, Map.of());
        c.workloads.indexedJob(ns, "run", 8, SMALL, false);
        var straggler = Kube.podObject(ns, "straggler", "run", "100m", "64Mi", Kube.SCHEDULER_NAME, null);
        straggler.getSpec().affinity(new V1Affinity().podAffinity(new V1PodAffinity().addRequiredDuringSchedulingIgnoredDuringExecutionItem(
                new V1PodAffinityTerm().topologyKey("kubernetes.io/hostname")
                        .labelSelector(new V1LabelSelector().matchLabels(Map.of("e2e.muster.dev/no-such-pod", "x"))))));
        Kube.call("create straggler", () -> c.admin.core().createNamespacedPod(ns, straggler).execute());
        Awaitility.await("8 binds waiting at the barrier, the gang's room reserved").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> c.extender.gauge("muster_waiting_binds") == 8 && c.extender.gauge("muster_reservations") == 1);

        c.workloads.deleteJob(ns, "run", "Foreground"); // the Job stays until the garbage collector has deleted its pods
        Awaitility.await("the Job and its pods gone, no bind waiting").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> !c.workloads.jobExists(ns, "run") && c.admin.pods(ns, "job=run").isEmpty()
                        && c.extender.gauge("muster_waiting_binds") == 0);
        c.admin.deleteNow(ns, "straggler");
        awaitNothingHeld("job=run");
    }

    @Test
    void aDeletedNamespaceTakesItsGangsRunningAndHeldWithIt() {
        c.admin.podGroup(ns, "run", 4, queue, Map.of());
        c.workloads.indexedJob(ns, "run", 4, SMALL, false);
        c.awaitRunning(ns, "job=run", 4);
        // 5 × 900m never fits 4 nodes of 1 cpu: its members' binds are held while Muster retries
        c.admin.podGroup(ns, "big", 5, queue, Map.of());
        c.workloads.indexedJob(ns, "big", 5, new Workloads.PodTemplate("big", "900m", "64Mi", 1), false);
        Awaitility.await("binds of the big gang held").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> c.extender.gauge("muster_held_binds") > 0);

        long t0 = System.nanoTime();
        c.admin.deleteNamespace(ns);
        Awaitility.await("no pod of the namespace holds room, nothing held, Queue back to zero").atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(200)).until(() -> c.holding(ns).isEmpty() && c.extender.gauge("muster_held_binds") == 0
                        && c.extender.gauge("muster_waiting_binds") == 0 && c.extender.gauge("muster_reservations") == 0
                        && c.musterHeldCpuMillis(queue) == 0 && c.allocatedCpuMillis(queue) == 0 && c.ledgerMatchesCluster());
        System.out.printf("e2e: a namespace with a running and a held gang deleted: everything released in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    private void awaitNothingHeld(String selector) {
        Awaitility.await("pods gone, nothing reserved, held or waiting, Queue back to zero").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200)).until(() -> c.admin.pods(ns, selector).isEmpty() && c.extender.gauge("muster_reservations") == 0
                        && c.extender.gauge("muster_waiting_binds") == 0 && c.extender.gauge("muster_held_binds") == 0
                        && c.musterHeldCpuMillis(queue) == 0 && c.allocatedCpuMillis(queue) == 0 && c.ledgerMatchesCluster());
    }
}
