package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * The verbs believe the cluster, never the request, whatever the transport (here the shared cluster's plain HTTP):
 * made-up pods in a filter reserve nothing, a bind for a pod the cluster never showed or for another scheduler's pod
 * binds nothing, and a real gang then finds the room all there.
 */
class GhostPodsE2eTest extends RealClusterTest {
    @Test
    void verbsAboutPodsTheClusterNeverShowedOrAnotherSchedulersPodChangeNothing() {
        List<String> nodes = java.util.stream.IntStream.range(0, E2eCluster.NODES).mapToObj(i -> "node-" + i).toList();
        double podsBefore = c.extender.gauge("muster_ledger_pods");
        for (int i = 0; i < 3; i++) { // three made-up pods of 8 cpu: before, Muster held their room for 30 s
            Http.Answer a = Http.post(c.extenderUrl() + "/filter", "application/json", filterBody(ns, "ghost-" + i, "8", nodes));
            assertThat(a.status()).isEqualTo(200);
            assertThat(a.body()).contains("\"Error\"", "has not been seen in the cluster by muster");
        }
        Http.Answer ghostBind = Http.post(c.extenderUrl() + "/bind", "application/json", bindBody(ns, "gated-0", UUID.randomUUID().toString(), "node-0"));
        assertThat(ghostBind.body()).contains("has not been seen in the cluster by muster");

        // a real pod of the default scheduler (none runs here, so it stays pending): Muster does not bind it
        var other = c.admin.pod(ns, "default-sched", null, "1", "1Gi", "default-scheduler", null);
        String uid = other.getMetadata().getUid();
        Awaitility.await("muster refuses to bind another scheduler's pod").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> Http.post(c.extenderUrl() + "/bind", "application/json", bindBody(ns, "default-sched", uid, "node-1")).body()
                        .contains("is scheduled by default-scheduler, not by muster"));
        assertThat(c.admin.bound(ns, "default-sched")).isEmpty();

        assertThat(c.extender.gauge("muster_reservations")).isZero();
        assertThat(c.extender.gauge("muster_held_binds")).isZero();
        assertThat(c.extender.gauge("muster_waiting_binds")).isZero();
        assertThat(c.extender.gauge("muster_ledger_pods")).isEqualTo(podsBefore);

        // the room was never held for the ghosts: a real gang of 4×2 cpu binds at once
        c.admin.podGroup(ns, "real", 4, "default", Map.of());
        long t = System.nanoTime();
        c.admin.members(ns, "real", 0, 4, "2", "1Gi");
        double seconds = c.awaitBound(ns, "real-", 4, t);
        System.out.printf("e2e: after the ghosts a real gang of 4 bound %.2f s after it was created%n", seconds);
    }

    static byte[] filterBody(String ns, String name, String cpu, List<String> nodes) {
        String pod = "{\"metadata\":{\"name\":\"" + name + "\",\"namespace\":\"" + ns + "\",\"uid\":\"" + UUID.randomUUID() + "\"},"
                + "\"spec\":{\"schedulerName\":\"muster\",\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"" + cpu + "\"}}}]}}";
        return ("{\"Pod\":" + pod + ",\"NodeNames\":[\"" + String.join("\",\"", nodes) + "\"]}").getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bindBody(String ns, String name, String uid, String node) {
        return ("{\"PodName\":\"" + name + "\",\"PodNamespace\":\"" + ns + "\",\"PodUID\":\"" + uid + "\",\"Node\":\"" + node + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
