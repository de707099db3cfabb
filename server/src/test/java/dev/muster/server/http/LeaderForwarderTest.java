package dev.muster.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A standby's forwarded request lasts as long as its leader holds the Lease, not as long as the timeout. */
class LeaderForwarderTest {
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
