package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.node;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.common.rpc.TestPki;
import dev.muster.common.tls.CertificateFiles;
import dev.muster.common.tls.PemTls;
import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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

            h.seen(FILTER); // the cluster showed the pod
            assertThat(h.client.get("/readyz").status()).isEqualTo(200);
            assertThat(h.client.post("/filter", FILTER).status()).isEqualTo(200);
        }
    }

    @Test
    void metricsShowLatencyDecisionsAndLedgerState() throws Exception {
        try (ExtenderHarness h = new ExtenderHarness()) {
            h.nodes(node("node-1", "8", "32Gi"), node("node-2", "8", "32Gi"), node("node-3", "8", "32Gi"));
            h.scheduler.markSynced();
            h.seen(FILTER); // the cluster showed the pod
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
        CertificateFiles server = new CertificateFiles(tls("server.crt"), tls(keyFile), null);
        try (ExtenderHarness h = new ExtenderHarness(SchedulerConfig.DEFAULT, server, Leadership.ALWAYS, 1 << 20)) {
            h.nodes(node("node-1", "8", "32Gi"));
            h.scheduler.markSynced();
            h.seen(FILTER); // the cluster showed the pod
            HttpClient client = HttpClient.newBuilder().sslContext(PemTls.clientContext(tls("ca.crt"))).build();
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + h.server.port() + "/filter"))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(FILTER)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"NodeNames\":[\"node-1\"]");
        }
    }

    @Test
    void withAClientCaTheVerbsServeOnlyClientsPresentingACertificateItSigned(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir, "verbs");
        TestPki.Issued serverCert = pki.server("extender");
        TestPki.Issued scheduler = pki.client("kube-scheduler");
        TestPki.Issued stranger = new TestPki(dir, "other").client("kube-scheduler");
        try (ExtenderHarness h = new ExtenderHarness(SchedulerConfig.DEFAULT, new CertificateFiles(serverCert.cert(), serverCert.key(),
                pki.caFile()), Leadership.ALWAYS, 1 << 20)) {
            h.nodes(node("node-1", "8", "32Gi"));
            h.scheduler.markSynced();
            h.seen(FILTER); // the cluster showed the pod
            assertThat(post(h, client(pki.caFile(), scheduler), "/filter").statusCode()).isEqualTo(200);

            for (SSLContext refused : List.of(PemTls.clientContext(pki.caFile()), client(pki.caFile(), stranger))) {
                assertThatThrownBy(() -> post(h, refused, "/bind")).isInstanceOf(java.io.IOException.class);
            }
            // the server counts a refused handshake on its own thread, after the client has already seen the alert
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(h.server.refusedHandshakes()).isEqualTo(2));
            assertThat(h.scheduler.ledger().pods()).isEmpty();
        }
    }

    /**
     * Each caller has its own certificate: only kube-scheduler's may call the verbs, only an extender's may send a
     * forwarded one; the controller's and an operator's get 403 and change nothing; the probes answer anyone of the CA.
     */
    @Test
    void theVerbsServeOnlyKubeSchedulersCertificateAndForwardedOnesOnlyAnExtenders(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir, "verbs");
        TestPki.Issued serverCert = pki.serverAndClient("muster-extender");
        dev.muster.common.tls.CallerRoles roles = dev.muster.common.tls.CallerRoles.parse("tls-client-roles",
                "scheduler=muster-scheduler,extender=muster-extender,controller=muster-controller,operator=muster-operator");
        try (ExtenderHarness h = new ExtenderHarness(SchedulerConfig.DEFAULT, new CertificateFiles(serverCert.cert(), serverCert.key(),
                pki.caFile()), roles, Leadership.ALWAYS, 1 << 20, 0)) {
            h.nodes(node("node-1", "8", "32Gi"));
            h.scheduler.markSynced();
            h.seen(FILTER); // the cluster showed the pod
            SSLContext scheduler = client(pki.caFile(), pki.client("muster-scheduler"));
            SSLContext controller = client(pki.caFile(), pki.client("muster-controller"));
            SSLContext operator = client(pki.caFile(), pki.client("muster-operator"));
            SSLContext extender = client(pki.caFile(), serverCert);
            for (SSLContext refused : List.of(controller, operator, extender)) {
                for (String verb : List.of("/filter", "/bind", "/preempt", "/prioritize")) {
                    HttpResponse<String> r = post(h, refused, verb);
                    assertThat(r.statusCode()).as(verb).isEqualTo(403);
                    assertThat(r.body()).contains("may not call this", "[SCHEDULER]");
                }
            }
            HttpResponse<String> forgedForward = post(h, scheduler, "/filter", LeaderForwarder.FORWARDED_BY, "muster-extender-0");
            assertThat(forgedForward.statusCode()).isEqualTo(403);
            assertThat(forgedForward.body()).contains("a forwarded request", "[EXTENDER]");
            assertThat(h.scheduler.ledger().reservations()).isEmpty();
            assertThat(get(h, scheduler, "/metrics").body())
                    .contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"forbidden\",} 4.0");

            assertThat(post(h, scheduler, "/filter").statusCode()).isEqualTo(200);
            assertThat(post(h, extender, "/filter", LeaderForwarder.FORWARDED_BY, "muster-extender-0").statusCode()).isEqualTo(200);
            assertThat(get(h, controller, "/healthz").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aRenewedCertificateAndCaServeNewConnectionsWithoutARestart(@TempDir Path dir) throws Exception {
        TestPki before = new TestPki(dir, "before");
        TestPki.Issued serverCert = before.server("extender");
        Path certFile = Files.copy(serverCert.cert(), dir.resolve("tls.crt"));
        Path keyFile = Files.copy(serverCert.key(), dir.resolve("tls.key"));
        Path caFile = Files.copy(before.caFile(), dir.resolve("ca.crt"));
        SSLContext oldClient = client(before.caFile(), before.client("kube-scheduler"));
        try (ExtenderHarness h = new ExtenderHarness(SchedulerConfig.DEFAULT, new CertificateFiles(certFile, keyFile, caFile),
                Leadership.ALWAYS, 1 << 20)) {
            h.nodes(node("node-1", "8", "32Gi"));
            h.scheduler.markSynced();
            h.seen(FILTER); // the cluster showed the pod
            assertThat(post(h, oldClient, "/filter").statusCode()).isEqualTo(200);

            TestPki after = new TestPki(dir, "after"); // a new CA, as a helm upgrade that regenerates them writes
            TestPki.Issued renewed = after.server("extender");
            Files.copy(renewed.key(), keyFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(renewed.cert(), certFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.copy(after.caFile(), caFile, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            SSLContext newClient = client(after.caFile(), after.client("kube-scheduler"));
            org.awaitility.Awaitility.await("the renewed files in use").atMost(java.time.Duration.ofSeconds(20))
                    .ignoreExceptions().until(() -> post(h, newClient, "/filter").statusCode() == 200);
            assertThatThrownBy(() -> post(h, oldClient, "/filter")).isInstanceOf(java.io.IOException.class);
        }
    }

    private static SSLContext client(Path caFile, TestPki.Issued cert) {
        return new CertificateFiles(cert.cert(), cert.key(), caFile).context(true);
    }

    /** A POST on a fresh connection (a new client each time: no connection is reused across certificates). */
    private static HttpResponse<String> post(ExtenderHarness h, SSLContext tls, String path, String... headers) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().sslContext(tls).build()) {
            HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + h.server.port() + path))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(FILTER));
            if (headers.length > 0) {
                b.headers(headers);
            }
            return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static HttpResponse<String> get(ExtenderHarness h, SSLContext tls, String path) throws Exception {
        try (HttpClient client = HttpClient.newBuilder().sslContext(tls).build()) {
            return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + h.server.port() + path)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }

    @Test
    void aStandbyForwardsVerbsToTheLeaderAndNeverDecidesItself() throws Exception {
        try (ExtenderHarness leader = new ExtenderHarness()) {
            leader.nodes(node("node-1", "8", "32Gi"), node("node-2", "8", "32Gi"), node("node-3", "8", "32Gi"));
            leader.scheduler.markSynced();
            leader.seen(FILTER); // the cluster showed the pod
            // both on 127.0.0.1, on different ports: the standby must use the port the Lease names, not its own
            int port = ExtenderHarness.freePort();
            Leadership standbyGate = ExtenderHarness.standby("standby", port, ExtenderHarness.identity("leader", leader.server.port()).toString());
            try (ExtenderHarness standby = new ExtenderHarness(SchedulerConfig.DEFAULT, null, standbyGate, 1 << 20, port)) {
                // the standby's own ledger is cold (no nodes, not synced): it must not answer from it
                ExtenderClient.FilterAnswer f = ExtenderClient.parseFilterForTest(standby.client.post("/filter", FILTER));
                assertThat(f.nodeNames()).containsExactly("node-1"); // picked: equal empty nodes, the first
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

    @Test
    void twoStandbysThatEachThinkTheOtherLeadsStopAfterOneHop() throws Exception {
        int portA = ExtenderHarness.freePort();
        int portB = ExtenderHarness.freePort();
        String a = ExtenderHarness.identity("replica-a", portA).toString();
        String b = ExtenderHarness.identity("replica-b", portB).toString();
        try (ExtenderHarness replicaA = new ExtenderHarness(SchedulerConfig.DEFAULT, null, ExtenderHarness.standby("replica-a", portA, b), 1 << 20, portA);
             ExtenderHarness replicaB = new ExtenderHarness(SchedulerConfig.DEFAULT, null, ExtenderHarness.standby("replica-b", portB, a), 1 << 20, portB)) {
            replicaA.scheduler.markSynced(); // standbys keep a warm ledger; they still must not decide
            replicaB.scheduler.markSynced();

            ExtenderClient.Raw r = replicaA.client.post("/filter", FILTER);

            assertThat(r.status()).isEqualTo(503);
            assertThat(new String(r.body())).contains("forwarding loop refused: " + a + " forwarded this request here")
                    .contains("(" + b + ") does not lead either (the leader is " + a + ")");
            // exactly one hop: A forwarded once, B refused once and forwarded nothing
            assertThat(new String(replicaA.client.get("/metrics").body()))
                    .contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"forwarded\",} 1.0")
                    .doesNotContain("outcome=\"forward-loop\"");
            assertThat(new String(replicaB.client.get("/metrics").body()))
                    .contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"forward-loop\",} 1.0")
                    .doesNotContain("outcome=\"forwarded\"");
            // and both still answer their probes
            assertThat(replicaA.client.get("/readyz").status()).isEqualTo(200);
            assertThat(replicaB.client.get("/readyz").status()).isEqualTo(200);
        }
    }

    @Test
    void aStandbyWhoseLeaseNamesItselfAnswersAClearErrorInsteadOfForwardingToItself() throws Exception {
        int port = ExtenderHarness.freePort();
        String self = ExtenderHarness.identity("replica-a", port).toString();
        try (ExtenderHarness standby = new ExtenderHarness(SchedulerConfig.DEFAULT, null, ExtenderHarness.standby("replica-a", port, self), 1 << 20, port)) {
            ExtenderClient.Raw r = standby.client.post("/filter", FILTER);

            assertThat(r.status()).isEqualTo(503);
            assertThat(new String(r.body())).contains("the Lease still names this replica (" + self + ") although it does not lead");
            assertThat(new String(standby.client.get("/metrics").body()))
                    .contains("muster_extender_decisions_total{verb=\"filter\",outcome=\"no-leader\",} 1.0")
                    .doesNotContain("outcome=\"forwarded\"");
        }
    }

    @Test
    void aLeaderWithoutPortsOnThisReplicasAddressIsNotForwardedTo() throws Exception {
        int port = ExtenderHarness.freePort();
        // an earlier extender's identity on the same IP: "its" port would be our own
        try (ExtenderHarness standby = new ExtenderHarness(SchedulerConfig.DEFAULT, null,
                ExtenderHarness.standby("replica-a", port, "replica-old_127.0.0.1"), 1 << 20, port)) {
            ExtenderClient.Raw r = standby.client.post("/filter", FILTER);

            assertThat(r.status()).isEqualTo(503);
            assertThat(new String(r.body())).contains("which is this replica's own address").contains("forwarding there would loop");
        }
    }

    @Test
    void theLeaderAnswersARequestAStandbyForwarded() throws Exception {
        try (ExtenderHarness leader = new ExtenderHarness()) {
            leader.nodes(node("node-1", "8", "32Gi"));
            leader.scheduler.markSynced();
            leader.seen(FILTER); // the cluster showed the pod
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(leader.url() + "/filter"))
                    .header(LeaderForwarder.FORWARDED_BY, "replica-b_http=8888,grpc=9090_10.0.0.2")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(FILTER)).build(), HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("\"NodeNames\":[\"node-1\"]");
        }
    }
}
