package dev.muster.common.rpc;

import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC server with its health status, built by {@link GrpcServers}. Health reports NOT_SERVING (for the
 * server as a whole, "", and for each application service by its full name) until the owner calls
 * {@link #setServing(boolean) setServing(true)}, e.g. after the first full sync.
 *
 * <p>This class is thread-safe: {@link Server} and {@link HealthStatusManager} are.
 */
public final class ManagedGrpcServer implements AutoCloseable {
    private final Server server;
    private final HealthStatusManager health;
    private final List<String> serviceNames;

    ManagedGrpcServer(Server server, HealthStatusManager health, List<String> serviceNames) {
        this.server = server;
        this.health = health;
        this.serviceNames = List.copyOf(serviceNames);
        setServing(false);
    }

    public ManagedGrpcServer start() {
        try {
            server.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start gRPC server on " + server.getListenSockets(), e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("gRPC server already started or shut down", e);
        }
        return this;
    }

    /** Health for "" and every application service: SERVING or NOT_SERVING. */
    public void setServing(boolean serving) {
        ServingStatus status = serving ? ServingStatus.SERVING : ServingStatus.NOT_SERVING;
        health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, status);
        for (String name : serviceNames) {
            health.setStatus(name, status);
        }
    }

    /** The bound TCP port (useful with port 0), or -1 for a transport without ports (in-process). */
    public int port() {
        for (SocketAddress address : server.getListenSockets()) {
            if (address instanceof InetSocketAddress inet) {
                return inet.getPort();
            }
        }
        return -1;
    }

    public Server server() {
        return server;
    }

    /**
     * Health turns NOT_SERVING for good, new calls are refused, running calls get {@code grace} to finish,
     * then are cancelled. Returns whether the server terminated.
     */
    public boolean shutdown(Duration grace) throws InterruptedException {
        health.enterTerminalState();
        server.shutdown();
        if (server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            return true;
        }
        server.shutdownNow();
        return server.awaitTermination(5, TimeUnit.SECONDS);
    }

    /** Cancels every call now and waits (briefly) for the transport to close. */
    @Override
    public void close() throws InterruptedException {
        health.enterTerminalState();
        server.shutdownNow();
        server.awaitTermination(5, TimeUnit.SECONDS);
    }
}
