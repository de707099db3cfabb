package dev.muster.controller.rpc;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Client channels to Muster's gRPC servers, plaintext or TLS/mTLS from files. Long-lived streams are kept
 * alive with pings (allowed by {@link dev.muster.common.rpc.GrpcServers#netty}) so a vanished server is noticed within about
 * {@value #KEEPALIVE_SECONDS}+{@value #KEEPALIVE_TIMEOUT_SECONDS} seconds even when no event flows.
 * Stateless; thread-safe.
 */
public final class GrpcChannels {
    public static final long KEEPALIVE_SECONDS = 30;
    public static final long KEEPALIVE_TIMEOUT_SECONDS = 10;
    /** A snapshot carries every queue and gang: allow far more than gRPC's default 4 MiB. */
    public static final int MAX_INBOUND_MESSAGE_BYTES = 128 << 20;

    private GrpcChannels() {}

    /**
     * A channel to {@code target} ({@code host:port} or any gRPC target URI).
     *
     * @param authority when non-null, the name the server's certificate is checked against instead of the
     *     target's host: lets a client that follows a redirect to a pod IP verify the certificate issued
     *     for the Service name it was configured with
     */
    public static ManagedChannel open(String target, Optional<ClientTls> tls, String authority) {
        ChannelCredentials credentials = tls.map(ClientTls::credentials).orElseGet(InsecureChannelCredentials::create);
        NettyChannelBuilder b = NettyChannelBuilder.forTarget(target, credentials)
                .keepAliveTime(KEEPALIVE_SECONDS, TimeUnit.SECONDS)
                .keepAliveTimeout(KEEPALIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS)
                .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES);
        if (authority != null && !authority.isEmpty()) {
            b.overrideAuthority(authority);
        }
        return b.build();
    }

    /**
     * The host part of a {@code host:port} target ({@code [v6]:port} and {@code dns:///host:port} too), to
     * use as {@code authority}.
     */
    public static String hostOf(String target) {
        int scheme = target.indexOf(":///");
        if (scheme >= 0) {
            target = target.substring(scheme + 4);
        }
        if (target.startsWith("[")) {
            int end = target.indexOf(']');
            return end > 0 ? target.substring(0, end + 1) : target;
        }
        int colon = target.lastIndexOf(':');
        return colon > 0 && target.indexOf(':') == colon ? target.substring(0, colon) : target;
    }
}
