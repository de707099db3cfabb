package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reclaim and preemption where the accounting matters, on hollow kubelets with kube-controller-manager (four 1-cpu
 * nodes): three equal queues with two reclaiming at once, priority preemption inside a queue at its capability, and
 * the room kube-scheduler freed for a nominated pod kept from a gang of lower priority.
 */
class QueueReclaimE2eTest extends ControllersClusterTest {
    /** How long the quiet after the reclaims is watched ({@code -Dmuster.e2e.reclaim-watch=PT5M}). */
    private static final Duration WATCH = Duration.parse(System.getProperty("muster.e2e.reclaim-watch", "PT1M"));

    @BeforeEach
    void priorityClasses() {
        c.workloads.priorityClass(PreemptionE2eTest.LOW, 10, "PreemptLowerPriority");
        c.workloads.priorityClass(PreemptionE2eTest.HIGH, 1000, "PreemptLowerPriority");
    }

    /** A Job of {@code n} pods of {@code cpu} joined to a PodGroup of minMember {@code n} in {@code inQueue}. */
    private void gangJob(String name, int n, String cpu, String inQueue, String priorityClass) {
        c.admin.podGroup(ns, name, n, inQueue, Map.of());
        c.workloads.indexedJob(ns, name, n, new Workloads.PodTemplate(name, cpu, "64Mi", 1, priorityClass), false);
    }

    /** Millicores held by the pods whose names start with {@code prefix} (bound, not finished, not being deleted). */
    private long cpuOf(String prefix, long podMillis) {
        return c.admin.pods(ns).stream().filter(p -> p.getMetadata().getName().startsWith(prefix) && p.getMetadata().getDeletionTimestamp() == null
                && ControllersCluster.holdsRoom(p)).count() * podMillis;
    }

    /**
     * Queue a (this test's) holds all 4 cpu in 4 gangs of 2 × 500m; queues b and c (weights 1:1:1, shares 1.33 cpu
     * each) send 4 gangs of one 500m pod each, all at once. A decision takes one of a's gangs (1 cpu) for a 500m gang:
     * the other 500m it frees is still used until its pod is gone, so the next queue's gang plans a decision of its own
     * in the next tick while the first victims terminate. Counted as gone, a gives two gangs and keeps 2 cpu (its share
     * is 1.33); counted as still held while they leave, a third and fourth decision would each still see a at 4 cpu and
     * take its last gangs. Then nothing moves: b and c at 1 cpu each may not go above their share.
     */
    @Test
    void twoQueuesReclaimingInConsecutiveTicksLeaveTheVictimQueueAtItsShare() throws InterruptedException {
        String b = queue + "-b";
        String cq = queue + "-c";
        c.admin.queue(b, Map.of("weight", 1));
        c.admin.queue(cq, Map.of("weight", 1));
        for (int g = 0; g < 4; g++) {
            gangJob("a" + g, 2, "500m", queue, null);
            c.awaitRunning(ns, "job=a" + g, 2);
        }
        Set<String> aPods = c.uids(ns, "job in (a0,a1,a2,a3)");
        assertThat(aPods).hasSize(8);
        AtomicInteger fewest = new AtomicInteger(8); // a's first pods holding room, sampled while it happens
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleWithFixedDelay(() -> fewest.accumulateAndGet(c.survivors(ns, aPods).size(), Math::min), 0, 100, TimeUnit.MILLISECONDS);
        double reclaimsBefore = c.extender.counter("muster_preemptions_total", "kind", "reclaim");
        long t0 = System.nanoTime();
        for (int g = 0; g < 4; g++) {
            gangJob("b" + g, 1, "500m", b, null);
            gangJob("c" + g, 1, "500m", cq, null);
        }
        try {
            Awaitility.await("queues b and c each hold 1 cpu (two 500m gangs; a third would take them above 1.33)")
                    .atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(250))
                    .until(() -> cpuOf("b", 500) == 1_000 && cpuOf("c", 500) == 1_000);
            System.out.printf("e2e: queues b and c reclaimed 1 cpu each %.1f s after their gangs were created%n", (System.nanoTime() - t0) / 1e9);
            Awaitility.await("nothing more evicted: a keeps two gangs (2 cpu, its share 1.33), b and c 1 cpu each").during(WATCH)
                    .atMost(WATCH.plusSeconds(30)).pollInterval(Duration.ofSeconds(1))
                    .until(() -> c.survivors(ns, aPods).size() == 4 && cpuOf("b", 500) == 1_000 && cpuOf("c", 500) == 1_000);
        } finally {
            sampler.shutdown();
            assertThat(sampler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(fewest.get()).as("queue a never held less than 2 cpu (4 pods of 500m; its share is 1.33 cpu)").isEqualTo(4);
        for (int g = 0; g < 4; g++) {
            String gang = "a" + g;
            long left = c.admin.pods(ns, "job=" + gang).stream().filter(p -> aPods.contains(p.getMetadata().getUid())
                    && p.getMetadata().getDeletionTimestamp() == null && ControllersCluster.holdsRoom(p)).count();
            assertThat(left).as("gang " + gang + " is whole or gone, never partial").isIn(0L, 2L);
        }
        assertThat(c.extender.counter("muster_preemptions_total", "kind", "reclaim") - reclaimsBefore).as("reclaim decisions").isEqualTo(2.0);
        assertThat(c.ledgerMatchesCluster()).isTrue();
    }

    /**
     * A queue capped at 2 cpu runs two low-priority gangs of 1 cpu; the cluster has 2 cpu free. A high-priority gang of
     * 1 cpu in the same queue fits on free room but not under the capability: it evicts one low gang of its own queue,
     * whole, and runs; the queue stays at its capability and nothing more is evicted.
     */
    @Test
    void aHighPriorityGangInAQueueAtItsCapabilityEvictsALowerGangOfItsQueueAndRuns() {
        String capped = queue + "-capped";
        c.admin.queue(capped, Map.of("weight", 1, "capability", Map.of("cpu", "2")));
        gangJob("low-a", 4, "250m", capped, PreemptionE2eTest.LOW);
        c.awaitRunning(ns, "job=low-a", 4);
        gangJob("low-b", 4, "250m", capped, PreemptionE2eTest.LOW);
        c.awaitRunning(ns, "job=low-b", 4);
        Set<String> low = c.uids(ns, "job in (low-a,low-b)");
        long t0 = System.nanoTime();
        gangJob("high", 4, "250m", capped, PreemptionE2eTest.HIGH);
        c.awaitRunning(ns, "job=high", 4);
        System.out.printf("e2e: a priority-1000 gang in a queue at its capability Running %.1f s after its Job was created%n",
                (System.nanoTime() - t0) / 1e9);
        Awaitility.await("one low gang evicted whole, the other untouched, the queue at its capability, and no more").during(Duration.ofSeconds(15))
                .atMost(Duration.ofSeconds(45)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.survivors(ns, low).size() == 4 && c.running(ns, "job=high") == 4 && cpuOf("", 250) == 2_000);
        long a = c.survivors(ns, c.uids(ns, "job=low-a")).stream().filter(low::contains).count();
        assertThat(List.of(a, 4 - a)).as("exactly one low gang went, whole").containsExactlyInAnyOrder(0L, 4L);
    }

    /**
     * A Deployment of sixteen low-priority single pods fills the cluster and a low-priority gang of 1 cpu waits. A
     * priority-1000 pod of a whole node arrives: kube-scheduler's DefaultPreemption evicts the four single pods of one
     * node and nominates it there. The freed node would fit the waiting gang exactly (and the Deployment's replacement
     * pods); it is kept for the nominated pod, of higher priority than both, which binds there, and no member of the
     * gang is ever bound.
     */
    @Test
    void roomFreedForANominatedPodIsNotTakenByALowerPriorityGang() throws InterruptedException {
        c.workloads.deployment(ns, "fill", 16, new Workloads.PodTemplate(null, "250m", "64Mi", 1, PreemptionE2eTest.LOW));
        c.awaitRunning(ns, "app=fill", 16);
        gangJob("waiting", 4, "250m", queue, PreemptionE2eTest.LOW);
        Awaitility.await("the gang's 4 pods exist and wait").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.admin.pods(ns, "job=waiting").size() == 4);
        Set<String> gangBound = ConcurrentHashMap.newKeySet(); // gang members ever seen bound
        Set<String> nominated = ConcurrentHashMap.newKeySet(); // the nodes the high pod was ever nominated to
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        sampler.scheduleWithFixedDelay(() -> {
            for (V1Pod p : c.admin.pods(ns)) {
                String name = p.getMetadata().getName();
                if (name.startsWith("waiting") && p.getSpec().getNodeName() != null) {
                    gangBound.add(name);
                }
                if (name.startsWith("high") && p.getStatus() != null && p.getStatus().getNominatedNodeName() != null) {
                    nominated.add(p.getStatus().getNominatedNodeName());
                }
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
        try {
            c.workloads.indexedJob(ns, "high", 1, new Workloads.PodTemplate(null, "1", "64Mi", 1, PreemptionE2eTest.HIGH), false);
            c.awaitRunning(ns, "job=high", 1);
            Awaitility.await("the gang still waits, 12 fill pods run (4 replacements wait)").during(Duration.ofSeconds(15))
                    .atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250))
                    .until(() -> c.running(ns, "job=waiting") == 0 && c.running(ns, "app=fill") == 12);
        } finally {
            sampler.shutdown();
            assertThat(sampler.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        String node = c.admin.pods(ns, "job=high").getFirst().getSpec().getNodeName();
        assertThat(nominated).as("kube-scheduler nominated the high pod to the node it then bound on").isNotEmpty().contains(node);
        assertThat(gangBound).as("no member of the lower-priority gang was ever bound").isEmpty();
        assertThat(c.ledgerMatchesCluster()).isTrue();
    }
}
