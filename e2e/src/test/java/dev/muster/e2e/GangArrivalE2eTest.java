package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Gangs arriving the ways jobs arrive, on the real kube-scheduler: all at once (a {@code kubectl create} of the
 * PodGroup and its pods), in waves, one pod at a time. kube-scheduler offers the first members before the last
 * exist; none may be parked, and all bind together once the last exists — with no other cluster event to help.
 */
class GangArrivalE2eTest extends RealClusterTest {
    @Test
    void gangOfEightCreatedWithItsPodGroupBindsWholeBesideSinglePods() {
        c.admin.podGroup(ns, "train", 8, "default", Map.of());
        c.admin.members(ns, "train", 0, 8, "1", "1Gi");
        long last = System.nanoTime();
        c.admin.pod(ns, "web-0", null, "500m", "512Mi");
        c.admin.pod(ns, "web-1", null, "500m", "512Mi");
        double s = c.awaitBound(ns, "train-", 8, last);
        c.awaitBound(ns, "web-", 2, last);
        assertThat(c.admin.bound(ns, "train-")).hasSize(8);
        System.out.printf("e2e: gang of 8 created with its PodGroup: all bound %.2f s after the last pod was created%n", s);
    }

    @Test
    void threeThenFive() throws Exception {
        waves(new int[] {3, 5}, Duration.ofSeconds(3));
    }

    @Test
    void fiveThenThree() throws Exception {
        waves(new int[] {5, 3}, Duration.ofSeconds(3));
    }

    @Test
    void oneAtATimeOneSecondApart() throws Exception {
        waves(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, Duration.ofSeconds(1));
    }

    private void waves(int[] sizes, Duration gap) throws InterruptedException {
        String g = "w" + sizes.length + "x" + sizes[0];
        c.admin.podGroup(ns, g, 8, "default", Map.of());
        int created = 0;
        long last = 0;
        for (int i = 0; i < sizes.length; i++) {
            if (i > 0) { // the gap between arrivals, during which nothing may bind
                c.staysBound(ns, g + "-", 0, gap);
            }
            c.admin.members(ns, g, created, sizes[i], "1", "1Gi");
            created += sizes[i];
            last = System.nanoTime();
        }
        double s = c.awaitBound(ns, g + "-", 8, last);
        System.out.printf("e2e: gang of 8 arriving in waves %s (%d s apart): all bound %.2f s after the last arrival%n",
                java.util.Arrays.toString(sizes), gap.toSeconds(), s);
    }
}
