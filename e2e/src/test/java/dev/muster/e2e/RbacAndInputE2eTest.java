package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** The chart's RBAC for real (ServiceAccount tokens), the single status writer, and bad input to the real extender port. */
class RbacAndInputE2eTest extends RealClusterTest {
    @Test
    void onlyTheControllerWritesQueueAndPodGroupStatus() {
        c.admin.podGroup(ns, "g", 2, "default", Map.of());
        c.admin.members(ns, "g", 0, 2, "1", "1Gi");
        c.awaitBound(ns, "g-", 2, System.nanoTime());

        String extenderToken = c.install.tokenFor("extender");
        String gv = c.cp.url() + "/apis/scheduling.volcano.sh/v1beta1";
        Http.Answer queue = Http.patch(gv + "/queues/default/status", extenderToken, "application/merge-patch+json", "{\"status\":{\"running\":99}}");
        Http.Answer podGroup = Http.patch(gv + "/namespaces/" + ns + "/podgroups/g", extenderToken, "application/merge-patch+json",
                "{\"status\":{\"phase\":\"Unknown\"}}");
        assertThat(queue.status()).as(queue.body()).isEqualTo(403);
        assertThat(podGroup.status()).as(podGroup.body()).isEqualTo(403);

        Awaitility.await("the controller wrote the PodGroup's and the Queue's status").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> "Running".equals(Kube.status(c.admin.podGroupObject(ns, "g")).get("phase"))
                        && Kube.status(c.admin.queueObject("default")).get("allocated") instanceof Map<?, ?> m && m.containsKey("cpu"));
        assertThat(statusManagers(c.admin.podGroupObject(ns, "g"))).containsExactly("muster-controller");
        assertThat(statusManagers(c.admin.queueObject("default"))).containsExactly("muster-controller");
    }

    /** The field managers whose managed fields include status. */
    @SuppressWarnings("unchecked")
    private static List<String> statusManagers(Map<String, Object> object) {
        List<Map<String, Object>> mf = (List<Map<String, Object>>) ((Map<String, Object>) object.get("metadata")).get("managedFields");
        return mf.stream().filter(f -> f.get("fieldsV1") instanceof Map<?, ?> v && v.containsKey("f:status"))
                .map(f -> (String) f.get("manager")).distinct().toList();
    }

    @Test
    void badBodiesGetAClearClientErrorAndChangeNothing() {
        c.admin.podGroup(ns, "g", 2, "default", Map.of());
        double podsBefore = c.extender.gauge("muster_ledger_pods");
        List<byte[]> bodies = List.of("{".getBytes(StandardCharsets.UTF_8), "{\"Pod\":5}".getBytes(StandardCharsets.UTF_8),
                "[]".getBytes(StandardCharsets.UTF_8), new byte[] {(byte) 0xff, 0x00, 0x7b});
        for (String verb : List.of("filter", "prioritize", "bind", "preempt")) {
            for (byte[] body : bodies) {
                Http.Answer a = Http.post(c.extenderUrl() + "/" + verb, "application/json", body);
                assertThat(a.status()).as(verb + " " + new String(body, StandardCharsets.UTF_8) + " → " + a.body()).isBetween(400, 499);
                assertThat(a.body()).as("a message that names the problem").isNotBlank();
            }
        }
        assertThat(c.extender.healthy()).isTrue();
        assertThat(c.extender.gauge("muster_ledger_pods")).isEqualTo(podsBefore);
        c.admin.members(ns, "g", 0, 2, "1", "1Gi");
        c.awaitBound(ns, "g-", 2, System.nanoTime());
    }
}
