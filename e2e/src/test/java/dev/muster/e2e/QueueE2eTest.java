package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** Queue capability and a closed queue, on the real kube-scheduler. */
class QueueE2eTest extends RealClusterTest {
    @Test
    void capabilityIsACeilingAndAClosedQueueAdmitsNothing() throws InterruptedException {
        c.admin.queue(ns + "-small", Map.of("weight", 1, "capability", Map.of("cpu", "4")));
        c.admin.queue(ns + "-closed", Map.of("weight", 1, "state", "Closed"));
        c.admin.podGroup(ns, "fits", 2, ns + "-small", Map.of());
        c.admin.podGroup(ns, "over", 2, ns + "-small", Map.of());
        c.admin.podGroup(ns, "shut", 1, ns + "-closed", Map.of());
        c.admin.members(ns, "fits", 0, 2, "1", "1Gi");
        c.awaitBound(ns, "fits-", 2, System.nanoTime());

        c.admin.members(ns, "over", 0, 2, "3", "1Gi"); // 2 + 6 cpu > capability 4
        c.admin.members(ns, "shut", 0, 1, "1", "1Gi");
        Awaitility.await("reasons in events").atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(500)).until(() ->
                c.admin.events(ns, "over-0").stream().anyMatch(e -> e.contains("capability"))
                        && c.admin.events(ns, "shut-0").stream().anyMatch(e -> e.contains("closed")));
        c.staysBound(ns, "over-", 0, Duration.ofSeconds(3));
        c.staysBound(ns, "shut-", 0, Duration.ofSeconds(1));
        System.out.println("e2e: queue reasons: " + c.admin.events(ns, "over-0").getLast() + " | " + c.admin.events(ns, "shut-0").getLast());
    }
}
