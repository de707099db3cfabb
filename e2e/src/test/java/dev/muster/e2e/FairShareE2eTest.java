package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two queues with weights 3:1 flooded with identical gangs on the real kube-scheduler: once the cluster is full, the
 * bound gangs split 3:1 (±1 gang), although the weight-1 queue's gangs were all created first.
 */
class FairShareE2eTest extends RealClusterTest {
    private static final int GANGS_PER_QUEUE = 8; // 2 members × 2 cpu: the 8 nodes × 4 cpu hold 8 gangs

    @Test
    void queuesWithWeightsThreeToOneEndWithAThreeToOneSplit() {
        c.admin.queue(ns + "-one", Map.of("weight", 1));
        c.admin.queue(ns + "-three", Map.of("weight", 3));
        long t0 = System.nanoTime();
        for (int i = 0; i < GANGS_PER_QUEUE; i++) {
            c.admin.podGroup(ns, "one-" + i, 2, ns + "-one", Map.of());
            c.admin.members(ns, "one-" + i, 0, 2, "2", "1Gi");
        }
        for (int i = 0; i < GANGS_PER_QUEUE; i++) {
            c.admin.podGroup(ns, "three-" + i, 2, ns + "-three", Map.of());
            c.admin.members(ns, "three-" + i, 0, 2, "2", "1Gi");
        }
        double full = c.awaitBound(ns, "", 2 * E2eCluster.NODES, t0); // 16 pods of 2 cpu fill 32 cpu
        c.staysBound(ns, "", 2 * E2eCluster.NODES, Duration.ofSeconds(3));
        int three = c.admin.bound(ns, "three-").size() / 2;
        int one = c.admin.bound(ns, "one-").size() / 2;
        System.out.printf("e2e: weights 3:1, %d gangs each (one's created first): bound %d:%d, cluster full after %.1f s%n",
                GANGS_PER_QUEUE, three, one, full);
        assertThat(three + one).isEqualTo(8);
        assertThat(three).isBetween(5, 7);
        assertThat(one).isBetween(1, 3);
    }
}
