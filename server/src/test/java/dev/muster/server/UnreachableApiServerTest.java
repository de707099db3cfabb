package dev.muster.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.kube.KubeClients;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.testing.RecordingBinder;
import dev.muster.server.leader.Leadership;
import dev.muster.server.sync.ClusterSync;
import dev.muster.testsupport.extender.ExtenderClient;
import io.prometheus.client.CollectorRegistry;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * An extender whose API server cannot be reached stays not ready, and its readiness says why: the cluster sync's
 * latest list/watch failure (its log repeats that failure once a minute for as long as it lasts: ListWatchErrorsTest).
 */
class UnreachableApiServerTest {
    @Test
    void readinessNamesTheFailureThatKeepsTheFirstSyncFromFinishing() throws Exception {
        String nowhere = "http://127.0.0.1:" + closedPort();
        ExtenderProcess.Settings s = new ExtenderProcess.Settings("127.0.0.1", 0, null, 0, 0, Optional.empty(), SchedulerConfig.DEFAULT,
                ServerDefaults.MAX_BODY_BYTES, 1024, Duration.ofMillis(100), false);
        try (ExtenderProcess p = new ExtenderProcess(s, new RecordingBinder(), Leadership.ALWAYS, new CollectorRegistry());
                ClusterSync sync = new ClusterSync(KubeClients.forUrl(nowhere).watches(), p.scheduler(), Duration.ZERO)) {
            p.syncTroubleFrom(sync::lastFailure);
            sync.start();
            ExtenderClient ops = new ExtenderClient("http://127.0.0.1:" + p.opsPort(), Duration.ofSeconds(10));

            await().atMost(Duration.ofSeconds(30)).until(() -> sync.lastFailure() != null);
            ExtenderClient.Raw ready = ops.get("/readyz");

            assertThat(ready.status()).isEqualTo(503);
            assertThat(new String(ready.body())).startsWith("not ready: first sync not finished: listing").contains("failed", "Connect");
            assertThat(sync.isSynced()).isFalse();
            assertThat(ops.get("/healthz").status()).as("alive all the same: a restart would not help").isEqualTo(200);
        }
    }

    private static int closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
