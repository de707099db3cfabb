package dev.muster.common.ops;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Executors;

/** A plain-HTTP server for probes and Prometheus: /healthz, /readyz, /metrics on its own port. */
public final class OpsServer implements AutoCloseable {
    private final HttpServer server;

    public OpsServer(InetSocketAddress address, OpsEndpoints endpoints) throws IOException {
        server = HttpServer.create(address, 64);
        endpoints.mount(server);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
