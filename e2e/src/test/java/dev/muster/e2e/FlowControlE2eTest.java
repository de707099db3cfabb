package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * API Priority and Fairness on the real API server: the chart's FlowSchemas put the extender's Bindings and Evictions at
 * kube-scheduler's priority level (workload-high), matched by the extender's ServiceAccount token, and leave its reads
 * where they were; the chart's kube-scheduler's requests ride the same level. The API server names the FlowSchema and
 * priority level it classified each request into in the {@code X-Kubernetes-PF-*} response headers, and counts Muster's
 * own gang binds in {@code apiserver_flowcontrol_dispatched_requests_total}.
 */
class FlowControlE2eTest extends RealClusterTest {
    private static final String FLOW_SCHEMA_UID = "X-Kubernetes-PF-FlowSchema-UID";
    private static final String PRIORITY_LEVEL_UID = "X-Kubernetes-PF-PriorityLevel-UID";

    @Test
    void theExtendersBindingsAndEvictionsAndTheChartsKubeSchedulerAreClassifiedAtWorkloadHigh() {
        String extenderSchema = uid("flowschemas", MusterInstall.RELEASE + "-extender");
        String schedulerSchema = uid("flowschemas", MusterInstall.RELEASE + "-scheduler");
        String workloadHigh = uid("prioritylevelconfigurations", "workload-high");
        String extender = c.install.tokenFor("extender");
        String api = c.cp.url() + "/api/v1/namespaces/" + ns + "/pods/";

        c.admin.pod(ns, "target", null, "10m", "16Mi", "nobody", null); // no scheduler binds it: the extender's token does
        Http.Exchange binding = Http.exchange("POST", api + "target/binding", extender, "{\"apiVersion\":\"v1\",\"kind\":\"Binding\","
                + "\"metadata\":{\"name\":\"target\"},\"target\":{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"name\":\"node-0\"}}");
        assertThat(binding.status()).as(binding.body()).isEqualTo(201);
        assertThat(binding.header(FLOW_SCHEMA_UID)).as("Binding's FlowSchema").isEqualTo(extenderSchema);
        assertThat(binding.header(PRIORITY_LEVEL_UID)).as("Binding's priority level").isEqualTo(workloadHigh);

        Http.Exchange eviction = Http.exchange("POST", api + "target/eviction", extender, "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\","
                + "\"metadata\":{\"name\":\"target\",\"namespace\":\"" + ns + "\"}}");
        assertThat(eviction.status()).as(eviction.body()).isEqualTo(201);
        assertThat(eviction.header(FLOW_SCHEMA_UID)).as("Eviction's FlowSchema").isEqualTo(extenderSchema);
        assertThat(eviction.header(PRIORITY_LEVEL_UID)).as("Eviction's priority level").isEqualTo(workloadHigh);

        Http.Exchange read = Http.exchange("GET", api, extender, null);
        assertThat(read.status()).isEqualTo(200);
        assertThat(read.header(FLOW_SCHEMA_UID)).as("the extender's reads are not lifted").isNotEqualTo(extenderSchema);
        assertThat(read.header(PRIORITY_LEVEL_UID)).isNotEqualTo(workloadHigh);

        Http.Exchange scheduler = Http.exchange("GET", c.cp.url() + "/api/v1/nodes?limit=1", c.install.tokenFor("scheduler"), null);
        assertThat(scheduler.status()).isEqualTo(200);
        assertThat(scheduler.header(FLOW_SCHEMA_UID)).as("the chart's kube-scheduler").isEqualTo(schedulerSchema);
        assertThat(scheduler.header(PRIORITY_LEVEL_UID)).isEqualTo(workloadHigh);
    }

    @Test
    void mustersOwnGangBindsAreDispatchedAtWorkloadHigh() {
        double before = dispatched(MusterInstall.RELEASE + "-extender", "workload-high");
        c.admin.podGroup(ns, "fc", 2, "default", Map.of());
        long t = System.nanoTime();
        c.admin.members(ns, "fc", 0, 2, "1", "1Gi");
        c.awaitBound(ns, "fc-", 2, t);
        Awaitility.await("the API server counts the extender's Bindings at workload-high").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500)).until(() -> dispatched(MusterInstall.RELEASE + "-extender", "workload-high") >= before + 2);
    }

    private String uid(String resource, String name) {
        Object o = Kube.call("get " + resource + "/" + name, () -> c.admin.custom()
                .getClusterCustomObject("flowcontrol.apiserver.k8s.io", "v1", resource, name).execute());
        return String.valueOf(((Map<?, ?>) ((Map<?, ?>) o).get("metadata")).get("uid"));
    }

    /** {@code apiserver_flowcontrol_dispatched_requests_total} for one FlowSchema and priority level, 0 when absent. */
    private double dispatched(String flowSchema, String priorityLevel) {
        String metrics = Http.exchange("GET", c.cp.url() + "/metrics", c.cp.adminToken(), null).body();
        double sum = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("apiserver_flowcontrol_dispatched_requests_total{") && line.contains("flow_schema=\"" + flowSchema + "\"")
                    && line.contains("priority_level=\"" + priorityLevel + "\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }
}
