package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** {@code kill -9} of Muster's processes in the middle of things, on the real control plane. */
class FailureE2eTest extends RealClusterTest {
    @Test
    void extenderKilledWithBindsWaitingLosesNothingAndNeverBindsPartOfAGang() throws Exception {
        c.admin.podGroup(ns, "g", 8, "default", Map.of());
        c.admin.members(ns, "g", 0, 7, "1", "1Gi");
        Awaitility.await("7 binds waiting at the barrier").atMost(Duration.ofSeconds(30)).until(() -> c.extender.gauge("muster_waiting_binds") == 7);

        c.extender.kill9();
        assertThat(c.admin.bound(ns, "g-")).isEmpty();
        c.extender.restart();
        c.admin.members(ns, "g", 7, 1, "1", "1Gi");
        double s = c.awaitBound(ns, "g-", 8, System.nanoTime());
        System.out.printf("e2e: after kill -9 and restart of the extender, the gang of 8 bound %.2f s after its last member%n", s);
        c.staysBound(ns, "g-", 8, Duration.ofSeconds(2));
        assertThat(c.cpuPerNode().values()).allMatch(m -> m <= 4000);
        assertThat(c.extender.logTail(400)).doesNotContain("Exception in thread");
    }

    @Test
    void controllerKilledThenRestartedConvergesTheStatus() throws Exception {
        c.controller.kill9();
        c.admin.podGroup(ns, "g", 2, "default", Map.of());
        c.admin.members(ns, "g", 0, 2, "1", "1Gi");
        c.awaitBound(ns, "g-", 2, System.nanoTime());
        c.controller.restart();
        Awaitility.await("PodGroup status written after the restart").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> "Running".equals(Kube.status(c.admin.podGroupObject(ns, "g")).get("phase")));
        assertThat(c.conditions(ns, "g")).anyMatch(s -> s.startsWith("Scheduled=True GangBound"));
    }
}
