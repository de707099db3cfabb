package dev.muster.common.ops;

import dev.muster.common.http.Http1Server;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/** A plain-HTTP server for probes and Prometheus: /healthz, /readyz, /metrics on its own port. */
public final class OpsServer implements AutoCloseable {
    private final Http1Server server;

    public OpsServer(InetSocketAddress address, OpsEndpoints endpoints) throws IOException {
        server = new Http1Server("muster-ops", address, null, endpoints::answer, 64 * 1024, Duration.ofSeconds(120), 256);
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        server.close();
    }
}
