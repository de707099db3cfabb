package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Pods created in a burst by several clients: kube-scheduler's informer often shows a new pod before Muster's does, and
 * its filter about that pod must not be answered with an error (kube-scheduler would back the pod off for a second or
 * more). Every pod binds, and no filter was answered "not seen".
 */
class BurstE2eTest extends RealClusterTest {
    static final int PODS = 200;
    static final int CLIENTS = 8;

    @Test
    void aBurstOfSinglePodsFromEightClientsBindsWithoutAFilterErrorForAPodMusterHadNotSeenYet() throws Exception {
        double errorsBefore = c.extender.counter("muster_filter_errors_total", "cause", "not_seen");
        double waitsBefore = c.extender.counter("muster_filter_pod_waits_total", "outcome", "seen");
        long t = System.nanoTime();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> created = new ArrayList<>();
            for (int k = 0; k < CLIENTS; k++) {
                int client = k;
                created.add(clients.submit(() -> {
                    for (int i = client; i < PODS; i += CLIENTS) {
                        c.admin.pod(ns, String.format("burst-%03d", i), null, "10m", "16Mi");
                    }
                }));
            }
            for (Future<?> f : created) {
                f.get();
            }
        } finally {
            clients.shutdown();
        }
        Awaitility.await(PODS + " pods bound").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.admin.bound(ns, "burst-").size() == PODS);
        System.out.printf("e2e: %d single pods from %d clients all bound %.2f s after the first was created;"
                        + " filters that waited for Muster's informer: %.0f%n", PODS, CLIENTS, (System.nanoTime() - t) / 1e9,
                c.extender.counter("muster_filter_pod_waits_total", "outcome", "seen") - waitsBefore);
        assertThat(c.extender.counter("muster_filter_errors_total", "cause", "not_seen") - errorsBefore)
                .as("filters answered 'not seen in the cluster by muster'").isZero();
    }
}
