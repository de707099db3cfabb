package dev.muster.common.rpc;

import io.grpc.BindableService;
import io.grpc.InsecureServerCredentials;
import io.grpc.ServerBuilder;
import io.grpc.ServerCredentials;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Builds Muster's gRPC servers. Every server gets, besides the caller's services, the standard gRPC
 * health service (overall and per-service status NOT_SERVING until its owner calls
 * {@link ManagedGrpcServer#setServing}) and server reflection (v1), so grpcurl and grpc-health-probe work.
 *
 * <p>The transport is injected as a {@link ServerBuilder}: production uses {@link #netty} on a port, tests
 * pass an {@code InProcessServerBuilder}. Stateless; thread-safe.
 */
public final class GrpcServers {
    /**
     * Clients of Muster keep their long-lived streams alive with pings; the server must allow them at this
     * rate (gRPC's default of 5 minutes would answer a 30 s ping with GOAWAY too_many_pings).
     */
    public static final long PERMIT_KEEPALIVE_SECONDS = 10;
    /** The server pings an idle connection this often, so a vanished client frees its call. */
    public static final long SERVER_KEEPALIVE_SECONDS = 60;
    /**
     * A new connection must finish its TLS handshake and HTTP/2 preface within this deadline of being accepted, or it
     * is closed (as the verbs port's head deadline): connections that open and stay silent, or send a handshake byte
     * by byte, cannot pile up (gRPC's own default is 120 s).
     */
    public static final long HANDSHAKE_DEADLINE_SECONDS = 10;

    private GrpcServers() {}

    /** A netty server builder on {@code address} (port 0 = any free port), with TLS or mTLS when given. */
    public static NettyServerBuilder netty(InetSocketAddress address, Optional<ServerTls> tls) {
        return netty(address, tls, HANDSHAKE_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }

    /** As {@link #netty(InetSocketAddress, Optional)}, with the handshake deadline given (tests). */
    static NettyServerBuilder netty(InetSocketAddress address, Optional<ServerTls> tls, long handshakeDeadline, TimeUnit unit) {
        ServerCredentials credentials = tls.map(ServerTls::credentials).orElseGet(InsecureServerCredentials::create);
        return NettyServerBuilder.forAddress(address, credentials)
                .handshakeTimeout(handshakeDeadline, unit)
                .permitKeepAliveTime(PERMIT_KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .permitKeepAliveWithoutCalls(true)
                .keepAliveTime(SERVER_KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .keepAliveTimeout(20, TimeUnit.SECONDS);
    }

    /** Adds health, reflection and {@code services} to {@code builder}; the server is not started yet. */
    public static ManagedGrpcServer build(ServerBuilder<?> builder, BindableService... services) {
        return build(builder, Arrays.stream(services).map(BindableService::bindService).toList());
    }

    /** As {@link #build(ServerBuilder, BindableService...)}, for services already wrapped (e.g. with interceptors). */
    public static ManagedGrpcServer build(ServerBuilder<?> builder, List<ServerServiceDefinition> services) {
        HealthStatusManager health = new HealthStatusManager();
        List<String> names = new ArrayList<>();
        for (ServerServiceDefinition service : services) {
            builder.addService(service);
            names.add(service.getServiceDescriptor().getName());
        }
        builder.addService(health.getHealthService());
        builder.addService(ProtoReflectionServiceV1.newInstance());
        return new ManagedGrpcServer(builder.build(), health, names);
    }
}
