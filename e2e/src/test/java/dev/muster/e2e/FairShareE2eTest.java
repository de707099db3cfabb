package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Two queues with weights 3:1 flooded with identical gangs on the real kube-scheduler. Gangs that arrive while there is
 * room simply start (nobody else wants it); once the cluster is full, the queue below its fair share reclaims room from
 * the one above it (whole gangs, only as far as both end within their shares), and the room each finished gang gives
 * back goes to the queue furthest below its share, so the split of bound gangs stays at 3:1 (±1 gang).
 */
class FairShareE2eTest extends RealClusterTest {
    private static final int GANGS_PER_QUEUE = 10; // 2 members × 2 cpu: the 8 nodes × 4 cpu hold 8 gangs
    private static final int FULL = 2 * E2eCluster.NODES; // bound pods when the cluster is full

    @Test
    void queuesWithWeightsThreeToOneEndWithAThreeToOneSplit() {
        c.admin.queue(ns + "-one", Map.of("weight", 1));
        c.admin.queue(ns + "-three", Map.of("weight", 3));
        long t0 = System.nanoTime();
        List<String> started = new ArrayList<>(); // gangs in the order they were created (and, roughly, started)
        for (int i = 0; i < GANGS_PER_QUEUE; i++) { // both queues flooded, the weight-1 queue's gang first each time
            for (String q : List.of("one", "three")) {
                c.admin.podGroup(ns, q + "-" + i, 2, ns + "-" + q, Map.of());
                c.admin.members(ns, q + "-" + i, 0, 2, "2", "1Gi");
                started.add(q + "-" + i);
            }
        }
        double full = c.awaitBound(ns, "", FULL, t0);
        System.out.printf("e2e: weights 3:1, %d gangs each: full after %.1f s with %d:%d%n", GANGS_PER_QUEUE, full,
                gangsBound("three"), gangsBound("one"));
        // the oldest running gang finishes, six times; each time the room goes to the queue below its share
        for (int round = 0; round < 6; round++) {
            String done = started.stream().filter(g -> c.admin.bound(ns, g + "-").size() == 2).findFirst().orElseThrow();
            started.remove(done);
            long t = System.nanoTime();
            c.admin.deleteNow(ns, done + "-0");
            c.admin.deleteNow(ns, done + "-1");
            Awaitility.await("cluster full again after " + done + " finished").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100)).until(() -> c.admin.bound(ns, "").size() >= FULL
                            && c.admin.bound(ns, done + "-").isEmpty());
            System.out.printf("e2e: %s finished; full again after %.1f s: %d:%d%n", done, (System.nanoTime() - t) / 1e9,
                    gangsBound("three"), gangsBound("one"));
        }
        int three = gangsBound("three");
        int one = gangsBound("one");
        assertThat(three + one).isEqualTo(8);
        assertThat(three).isBetween(5, 7);
        assertThat(one).isBetween(1, 3);
    }

    private int gangsBound(String queue) {
        return c.admin.bound(ns, queue + "-").size() / 2;
    }
}
