package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The extender's ops port under clients that hold connections: the kubelet's liveness probe (a new connection, one
 * GET) is still answered, so no pod can get the extender restarted by opening slow connections to it.
 */
class OpsPortE2eTest extends RealClusterTest {
    @Test
    void threeHundredSlowConnectionsDoNotStarveTheLivenessProbe() throws Exception {
        int port = c.extender.opsPort();
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 300; i++) { // each sends one header line, then nothing
                Socket s = new Socket("127.0.0.1", port);
                s.getOutputStream().write("GET /healthz HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                slow.add(s);
            }
            for (int probe = 0; probe < 3; probe++) {
                try (HttpClient kubelet = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) { // a new connection
                    long t = System.nanoTime();
                    HttpResponse<String> r = kubelet.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/healthz"))
                            .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
                    System.out.printf("e2e: /healthz with 300 slow connections open answered %d in %.1f ms%n", r.statusCode(),
                            (System.nanoTime() - t) / 1e6);
                    assertThat(r.statusCode()).isEqualTo(200);
                }
            }
        } finally {
            for (Socket s : slow) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
        // and the extender still schedules
        c.admin.podGroup(ns, "g", 2, "default", Map.of());
        c.admin.members(ns, "g", 0, 2, "1", "1Gi");
        c.awaitBound(ns, "g-", 2, System.nanoTime());
    }
}
