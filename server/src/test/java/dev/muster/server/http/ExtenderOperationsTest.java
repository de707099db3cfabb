package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.server.http.PemTls;
import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Readiness, metrics, TLS and standby forwarding: what operators and kube-scheduler see around the verbs. */
class ExtenderOperationsTest {
    private static final byte[] FILTER = ExtenderHarness.fixture("nodecache-true/filter-request.json");

    private static Path tls(String file) throws Exception {
        return Path.of(ExtenderOperationsTest.class.getResource("/tls/" + file).toURI());
    }

    @Test
    void notReadyUntilTheFirstSyncThenReady() throws Exception {
        try (ExtenderHarness h = new ExtenderHarness()) {
            h.nodes(node("node-1", "8", "32Gi"));
            assertThat(h.client.get("/readyz").status()).isEqualTo(503);
            ExtenderClient.Raw early = h.client.post("/filter", FILTER);
            assertThat(early.status()).isEqualTo(503);
            assertThat(new String(early.body())).contains("not ready: first sync not finished");
            assertThat(h.client.get("/healthz").status()).isEqualTo(200);

            h.scheduler.markSynced();
            assertThat(h.client.get("/readyz").status()).isEqualTo(200);
            assertThat(h.client.post("/filter", FILTER).status()).isEqualTo(200);
        }
    }

    @Test
    void metricsShowLatencyDecisionsAndLedgerState() throws Exception {
        try (ExtenderHarness h = new ExtenderHarness()) {
            h.nodes(node("node-1", "8", "32Gi"), node("node-2", "8", "32Gi"), node("node-3", "8", "32Gi"));
            h.scheduler.markSynced();
            h.client.post("/filter", FILTER);
            h.client.post("/prioritize", FILTER);
            String metrics = new String(h.client.get("/metrics").body());
            assertThat(metrics)
                    .contains("muster_extender_request_seconds_bucket{verb=\"filter\",transport=\"http\"")
                    .contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"fit\",} 1.0")
                    .contains("muster_gangs{state=\"reserved\",}")
                    .contains("muster_gangs_refused{cause=\"queue_full\",} 0.0")
                    .contains("muster_waiting_binds 0.0")
                    .contains("muster_overcommitted_nodes 0.0")
                    .contains("muster_ledger_nodes 3.0");
        }
    }

    @ParameterizedTest(name = "key as {0}")
    @ValueSource(strings = {"server.key", "server-pkcs1.key"})
    void servesHttpsFromPemFiles(String keyFile) throws Exception {
        SSLContext server = PemTls.serverContext(tls("server.crt"), tls(keyFile), null);
        try (ExtenderHarness h = new ExtenderHarness(SchedulerConfig.DEFAULT, server, Leadership.ALWAYS, 1 << 20)) {
            h.nodes(node("node-1", "8", "32Gi"));
            h.scheduler.markSynced();
            HttpClient client = HttpClient.newBuilder().sslContext(PemTls.clientContext(tls("ca.crt"))).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + h.server.port() + "/filter"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(FILTER)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"NodeNames\":[\"node-1\"]");
        }
    }

    @Test
    void aStandbyForwardsVerbsToTheLeaderAndNeverDecidesItself() throws Exception {
        try (ExtenderHarness leader = new ExtenderHarness()) {
            leader.nodes(node("node-1", "8", "32Gi"), node("node-2", "8", "32Gi"), node("node-3", "8", "32Gi"));
            leader.scheduler.markSynced();
            // both on 127.0.0.1, on different ports: the standby must use the port the Lease names, not its own
            int port = ExtenderHarness.freePort();
            Leadership standbyGate = ExtenderHarness.standby("standby", port, ExtenderHarness.identity("leader", leader.server.port()).toString());
            try (ExtenderHarness standby = new ExtenderHarness(SchedulerConfig.DEFAULT, null, standbyGate, 1 << 20, port)) {
                // the standby's own ledger is cold (no nodes, not synced): it must not answer from it
                ExtenderClient.FilterAnswer f = ExtenderClient.parseFilterForTest(standby.client.post("/filter", FILTER));
                assertThat(f.nodeNames()).containsExactly("node-1", "node-2", "node-3");
                assertThat(new String(leader.client.get("/metrics").body()))
                        .contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"fit\",} 1.0");
                assertThat(new String(standby.client.get("/metrics").body()))
                        .contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"forwarded\",} 1.0")
                        .doesNotContain("outcome=\"fit\"");
            }
        }
    }

    @Test
    void aStandbyWithNoKnownLeaderAnswers503() throws Exception {
        Leadership lost = ExtenderHarness.standby("standby", ExtenderHarness.freePort(), null);
        try (ExtenderHarness standby = new ExtenderHarness(SchedulerConfig.DEFAULT, null, lost, 1 << 20)) {
            ExtenderClient.Raw r = standby.client.post("/filter", FILTER);
            assertThat(r.status()).isEqualTo(503);
            assertThat(new String(r.body())).contains("standby and no leader is known");
            assertThat(List.of(standby.journal.lastSequence())).containsExactly(0L);
        }
    }
}
