package dev.muster.common.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.client.CollectorRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ops port under clients that hold connections open: the probes are still answered. */
class OpsServerTest {
    @Test
    void threeHundredSlowConnectionsDoNotStarveTheLivenessProbe() throws Exception {
        List<Socket> slow = new ArrayList<>();
        try (OpsServer ops = new OpsServer(new InetSocketAddress("127.0.0.1", 0), new OpsEndpoints(new CollectorRegistry(), () -> null))) {
            for (int i = 0; i < 300; i++) { // more than the server's limit: each sends one header line and stops
                Socket s = new Socket("127.0.0.1", ops.port());
                s.getOutputStream().write("GET /healthz HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
                s.getOutputStream().flush();
                slow.add(s);
            }
            for (int probe = 0; probe < 3; probe++) { // what the kubelet does: a new connection per probe
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
                HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops.port() + OpsEndpoints.HEALTHZ))
                        .timeout(Duration.ofSeconds(30)).build();
                HttpResponse<String> r = client.send(get, HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).isEqualTo(200);
                assertThat(r.body()).isEqualTo("ok\n");
            }
            assertThat(ops.evictedConnections()).as("slow connections made room for the probes").isPositive();
        } finally {
            for (Socket s : slow) {
                closeQuietly(s);
            }
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
