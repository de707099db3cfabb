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

    /**
     * The extender holds pods/status patch for every pod, for its own condition: the chart's ValidatingAdmissionPolicy
     * makes the API server refuse its token anything else there (another condition, a label) and accept its condition.
     */
    @Test
    void theExtendersTokenMayChangeOnlyItsOwnPodCondition() {
        c.admin.pod(ns, "parked", null, "1", "1Gi", Kube.SCHEDULER_NAME + "-nobody", null);
        String extenderToken = c.install.tokenFor("extender");
        String url = c.cp.url() + "/api/v1/namespaces/" + ns + "/pods/parked/status";
        String smp = "application/strategic-merge-patch+json";
        Http.Answer ready = Http.patch(url, extenderToken, smp,
                "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}]}}");
        Http.Answer label = Http.patch(url, extenderToken, smp, "{\"metadata\":{\"labels\":{\"stolen\":\"yes\"}}}");
        Http.Answer phase = Http.patch(url, extenderToken, smp, "{\"status\":{\"nominatedNodeName\":\"node-1\"}}");
        Http.Answer retry = Http.patch(url, extenderToken, smp,
                "{\"status\":{\"conditions\":[{\"type\":\"muster.dev/Retry\",\"status\":\"True\",\"reason\":\"QueueChanged\"}]}}");
        assertThat(ready.status()).as(ready.body()).isEqualTo(403);
        assertThat(ready.body()).contains("may change only its own pod condition muster.dev/Retry");
        assertThat(label.status()).as(label.body()).isEqualTo(403);
        assertThat(phase.status()).as(phase.body()).isEqualTo(403);
        assertThat(retry.status()).as(retry.body()).isEqualTo(200);
        assertThat(retry.body()).contains("muster.dev/Retry").doesNotContain("\"Ready\"").doesNotContain("stolen");
        Http.Answer asAdmin = Http.patch(url, c.cp.adminToken(), smp, "{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}");
        assertThat(asAdmin.status()).as("other users are not matched: " + asAdmin.body()).isEqualTo(200);
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
