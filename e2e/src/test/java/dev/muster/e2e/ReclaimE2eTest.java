package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Queue reclaim on hollow kubelets with kube-controller-manager: queue A (this test's) borrowed the whole cluster with
 * long-running gangs; queue B (weight 1, like A) gets gangs; B takes back its fair share (half the cluster) by evicting
 * A's gangs whole, A keeps its own, and then nothing is evicted any more — the two queues never take turns.
 */
class ReclaimE2eTest extends ControllersClusterTest {
    /** How long the quiet after the reclaim is watched ({@code -Dmuster.e2e.reclaim-watch=PT5M}). */
    private static final Duration WATCH = Duration.parse(System.getProperty("muster.e2e.reclaim-watch", "PT2M"));

    private void gangJob(String name, String inQueue) {
        c.admin.podGroup(ns, name, 4, inQueue, Map.of());
        c.workloads.indexedJob(ns, name, 4, new Workloads.PodTemplate(name, "250m", "64Mi", 1), false);
    }

    private long cpuOf(String gangPrefix) {
        return c.admin.pods(ns).stream().filter(p -> p.getMetadata().getName().startsWith(gangPrefix) && p.getMetadata().getDeletionTimestamp() == null
                && ControllersCluster.holdsRoom(p)).count() * 250;
    }

    @Test
    void aQueueBelowItsShareReclaimsItWholeGangsAtATimeAndThenNothingMoves() {
        String b = queue + "-b";
        c.admin.queue(b, Map.of("weight", 1));
        Set<String> aPods = new HashSet<>();
        for (int g = 0; g < 4; g++) {
            gangJob("a" + g, queue);
            c.awaitRunning(ns, "job=a" + g, 4);
        }
        c.admin.pods(ns).forEach(p -> aPods.add(p.getMetadata().getUid()));
        assertThat(aPods).hasSize(16);

        double reclaimsBefore = c.extender.counter("muster_preemptions_total", "kind", "reclaim");
        long t0 = System.nanoTime();
        for (int g = 0; g < 3; g++) {
            gangJob("b" + g, b);
        }
        Awaitility.await("queue b holds its fair share (2 cpu, two gangs of 4 × 250m)").atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250)).until(() -> cpuOf("b") == 2_000);
        System.out.printf("e2e: queue b reclaimed its fair share (2 of 4 cpu) %.1f s after its gangs were created%n", (System.nanoTime() - t0) / 1e9);
        assertThat(c.survivors(ns, aPods).size()).as("queue a keeps two whole gangs (its share)").isEqualTo(8);

        Awaitility.await("no eviction after that (no thrash), b at its share, a at its own").during(WATCH).atMost(WATCH.plusSeconds(30))
                .pollInterval(Duration.ofSeconds(1)).until(() -> c.survivors(ns, aPods).size() == 8 && cpuOf("b") == 2_000);
        for (int g = 0; g < 4; g++) {
            int left = c.admin.pods(ns, "job=a" + g).stream().filter(p -> aPods.contains(p.getMetadata().getUid())
                    && p.getMetadata().getDeletionTimestamp() == null && ControllersCluster.holdsRoom(p)).toList().size();
            assertThat(left).as("gang a" + g + " is whole or gone, never partial").isIn(0, 4);
        }
        assertThat(c.extender.counter("muster_preemptions_total", "kind", "reclaim") - reclaimsBefore).as("reclaim decisions").isEqualTo(2.0);
    }

    @Test
    void aQueueThatIsNotReclaimableOrWithinItsGuaranteeLosesNothingUntilItsSpecSaysSo() {
        String a = queue + "-a";
        String b = queue + "-b";
        c.admin.queue(a, Map.of("weight", 1, "reclaimable", false));
        c.admin.queue(b, Map.of("weight", 1));
        Set<String> aPods = new HashSet<>();
        for (int g = 0; g < 4; g++) {
            gangJob("a" + g, a);
            c.awaitRunning(ns, "job=a" + g, 4);
        }
        c.admin.pods(ns).forEach(p -> aPods.add(p.getMetadata().getUid()));
        for (int g = 0; g < 2; g++) {
            gangJob("b" + g, b);
        }
        Awaitility.await("reclaimable: false — queue a keeps everything").during(Duration.ofSeconds(15)).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(250)).until(() -> c.survivors(ns, aPods).size() == 16 && cpuOf("b") == 0);

        c.admin.patchQueueSpec(a, "{\"reclaimable\":true,\"guarantee\":{\"resource\":{\"cpu\":\"4\"}}}");
        Awaitility.await("a guarantee of the whole cluster — queue a keeps everything").during(Duration.ofSeconds(15))
                .atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250)).until(() -> c.survivors(ns, aPods).size() == 16 && cpuOf("b") == 0);

        c.admin.patchQueueSpec(a, "{\"guarantee\":{\"resource\":{\"cpu\":\"2\"}}}");
        // a's share is now its 2 cpu guarantee plus half of the 2 cpu left (weights 1:1): b's share is one gang
        Awaitility.await("a guarantee of half — queue b reclaims its share of the rest").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).until(() -> cpuOf("b") == 1_000);
        Awaitility.await("and no more").during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250))
                .until(() -> cpuOf("b") == 1_000 && c.survivors(ns, aPods).size() == 12);
    }
}
