package dev.muster.common.ops;

import dev.muster.common.http.Http1Server;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * A plain-HTTP server for probes and Prometheus: /healthz, /readyz, /metrics on its own port.
 *
 * <p>No client can starve the probes: every answer here is immediate, so a connection is only ever held by a client
 * that is slow to send; a request head must arrive within {@link #HEAD_TIMEOUT}, and when {@link #MAX_CONNECTIONS}
 * are open a new connection (the kubelet's probe) closes the one that has waited longest for its client instead of
 * being refused ({@link Http1Server}).
 */
public final class OpsServer implements AutoCloseable {
    /** Open connections at most; beyond it, a new one takes the place of the one that waited longest. */
    public static final int MAX_CONNECTIONS = 256;
    /** A probe or scrape sends its request head at once; a connection that has not within this long is closed. */
    public static final Duration HEAD_TIMEOUT = Duration.ofSeconds(5);
    private final Http1Server server;

    public OpsServer(InetSocketAddress address, OpsEndpoints endpoints) throws IOException {
        server = new Http1Server("muster-ops", address, null, false, endpoints::answer, 64 * 1024, Duration.ofSeconds(120), HEAD_TIMEOUT,
                MAX_CONNECTIONS);
    }

    public int port() {
        return server.port();
    }

    /** Connections closed to make room for a new one, since start (tests read it). */
    public long evictedConnections() {
        return server.evictedConnections();
    }

    @Override
    public void close() {
        server.close();
    }
}
