package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Gangs arriving the ways jobs arrive, on the real kube-scheduler: all at once (a {@code kubectl create} of the
 * PodGroup and its pods), in waves, one pod at a time. kube-scheduler offers the first members before the last
 * exist; none may be parked, and all bind together once the last exists — with no other cluster event to help.
 */
@RealControlPlane
class GangArrivalE2eTest {
    private E2eCluster c;
    private String ns;

    @BeforeEach
    void setUp() {
        c = E2eCluster.get();
        ns = c.namespace("arrival");
    }

    @AfterEach
    void tearDown() {
        c.cleanUp(ns);
    }

    /** Waits until {@code count} pods named {@code prefix}* are bound; returns seconds from {@code sinceNanos}. */
    private double awaitBound(String prefix, int count, long sinceNanos) {
        Awaitility.await(count + " pods " + prefix + "* bound").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(50))
                .until(() -> c.admin.bound(ns, prefix).size() >= count);
        double s = (System.nanoTime() - sinceNanos) / 1e9;
        assertThat(c.admin.bound(ns, prefix)).hasSize(count);
        return s;
    }

    @Test
    void gangOfEightCreatedWithItsPodGroupBindsWholeBesideSinglePods() {
        c.admin.podGroup(ns, "train", 8, "default", Map.of());
        c.admin.members(ns, "train", 0, 8, "1", "1Gi");
        long last = System.nanoTime();
        c.admin.pod(ns, "web-0", null, "500m", "512Mi");
        c.admin.pod(ns, "web-1", null, "500m", "512Mi");
        double s = awaitBound("train-", 8, last);
        awaitBound("web-", 2, last);
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
            if (i > 0) {
                Thread.sleep(gap.toMillis());
                assertThat(c.admin.bound(ns, g + "-")).as("nothing binds before the last member exists").isEmpty();
            }
            c.admin.members(ns, g, created, sizes[i], "1", "1Gi");
            created += sizes[i];
            last = System.nanoTime();
        }
        double s = awaitBound(g + "-", 8, last);
        System.out.printf("e2e: gang of 8 arriving in waves %s (%d s apart): all bound %.2f s after the last arrival%n",
                java.util.Arrays.toString(sizes), gap.toSeconds(), s);
    }
}
