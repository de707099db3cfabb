package dev.muster.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.http.Http1Response;
import dev.muster.common.http.Http1Server;
import dev.muster.common.rpc.TestPki;
import dev.muster.common.tls.CallerRoles;
import dev.muster.common.tls.CertificateFiles;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A standby's forwarded request lasts as long as its leader holds the Lease, not as long as the timeout, and goes only
 * to a leader presenting an extender's certificate.
 */
class LeaderForwarderTest {
    @Test
    void onlyALeaderWithAnExtendersCertificateIsForwardedTo(@TempDir Path dir) throws Exception {
        TestPki pki = new TestPki(dir, "muster");
        TestPki.Issued extender = pki.serverAndClient("muster-extender");
        TestPki.Issued impostor = pki.serverAndClient("muster-scheduler"); // Helm's client certificates may also serve
        CallerRoles roles = CallerRoles.parse("tls-client-roles", "scheduler=muster-scheduler,extender=muster-extender");
        LeaderForwarder forwarder = new LeaderForwarder(new CertificateFiles(extender.cert(), extender.key(), pki.caFile()), roles,
                Duration.ofSeconds(30));
        for (TestPki.Issued leader : List.of(extender, impostor)) {
            try (Http1Server server = new Http1Server("leader", new InetSocketAddress("127.0.0.1", 0),
                    new CertificateFiles(leader.cert(), leader.key(), pki.caFile()).context(true), true,
                    r -> Http1Response.text(200, "decided"), 1 << 20, Duration.ofMinutes(1), 10)) {
                LeaderForwarder.Forwarded f = forwarder.forward("https://127.0.0.1:" + server.port(), "/filter", "{}".getBytes(StandardCharsets.UTF_8),
                        "standby-0");
                if (leader == extender) {
                    assertThat(f.status()).isEqualTo(200);
                } else {
                    assertThat(f.status()).isEqualTo(503);
                    assertThat(new String(f.body(), StandardCharsets.UTF_8)).contains("could not reach the leader");
                }
            }
        }
    }

    @Test
    void aRequestForwardedToAFrozenLeaderIsAbandonedWhenTheLeaseNamesAnother() throws Exception {
        try (ServerSocket frozen = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) { // accepts, never answers
            AtomicBoolean leaderHolds = new AtomicBoolean(true);
            LeaderForwarder forwarder = new LeaderForwarder(null, Duration.ofMinutes(10));
            CompletableFuture<LeaderForwarder.Forwarded> answer = CompletableFuture.supplyAsync(() -> forwarder.forward(
                    "http://127.0.0.1:" + frozen.getLocalPort(), "/bind", "{}".getBytes(StandardCharsets.UTF_8), "standby-0", leaderHolds::get));
            try (Socket held = frozen.accept()) { // the request reached the leader, which does not answer
                assertThat(answer).isNotDone();
                leaderHolds.set(false); // its Lease expired and another replica took it
                LeaderForwarder.Forwarded f = answer.get();
                assertThat(f.status()).isEqualTo(503);
                assertThat(new String(f.body(), StandardCharsets.UTF_8)).contains("no longer holds the Lease", "retry with the new leader");
            }
        }
    }
}
