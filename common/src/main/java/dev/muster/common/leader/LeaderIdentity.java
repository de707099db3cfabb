package dev.muster.common.leader;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lease holder identity, which is also where the holder serves. Two forms:
 *
 * <ul>
 *   <li>{@code <POD_NAME>_<POD_IP>}, e.g. {@code muster-controller-0_10.1.2.3}: the address only (the controller,
 *       whose Lease nobody forwards to, and extenders before serving ports were published);
 *   <li>{@code <POD_NAME>_http=<HTTP_PORT>,grpc=<GRPC_PORT>_<POD_IP>}, e.g.
 *       {@code muster-extender-7d9f-x2_http=8888,grpc=9090_10.1.2.3}: the extender, with the ports its HTTP verbs and
 *       gRPC listen on, so that a standby reaches the leader at the leader's own ports rather than its own.
 * </ul>
 *
 * Pod names are DNS subdomains and IPs (v4 or v6) contain no underscore, so {@code _} separates the parts; the IP
 * stays last in both forms, so a reader that takes what follows the last underscore (every earlier Muster) still
 * finds the address. A port of 0 means "not published" (the first form).
 */
public record LeaderIdentity(String podName, String podIp, int httpPort, int grpcPort) {
    private static final Pattern PORTS = Pattern.compile("http=(\\d{1,5}),grpc=(\\d{1,5})");

    public LeaderIdentity {
        Objects.requireNonNull(podName, "podName");
        Objects.requireNonNull(podIp, "podIp");
        if (podName.isEmpty() || podName.contains("_")) {
            throw new IllegalArgumentException("pod name \"" + podName + "\" must be non-empty and contain no '_'");
        }
        if (podIp.isEmpty() || podIp.contains("_")) {
            throw new IllegalArgumentException("pod IP \"" + podIp + "\" must be non-empty and contain no '_'");
        }
        if ((httpPort == 0) != (grpcPort == 0) || httpPort < 0 || httpPort > 65535 || grpcPort < 0 || grpcPort > 65535) {
            throw new IllegalArgumentException("serving ports must both be 1-65535 (or both 0: not published), got http "
                    + httpPort + ", grpc " + grpcPort);
        }
    }

    /** The address-only form {@code <POD_NAME>_<POD_IP>}. */
    public LeaderIdentity(String podName, String podIp) {
        this(podName, podIp, 0, 0);
    }

    /** The same pod, publishing where it serves. */
    public LeaderIdentity withPorts(int http, int grpc) {
        return new LeaderIdentity(podName, podIp, http, grpc);
    }

    /** True when the identity carries the serving ports. */
    public boolean publishesPorts() {
        return httpPort != 0;
    }

    /** The identity string written to the Lease. */
    @Override
    public String toString() {
        return publishesPorts() ? podName + "_http=" + httpPort + ",grpc=" + grpcPort + "_" + podIp : podName + "_" + podIp;
    }

    /**
     * Reads a holder identity in either form; empty when there is none (released) or it is not one of Muster's
     * (written by another tool).
     */
    public static Optional<LeaderIdentity> parse(String holderIdentity) {
        if (holderIdentity == null) {
            return Optional.empty();
        }
        String[] parts = holderIdentity.split("_", -1);
        try {
            if (parts.length == 2) {
                return Optional.of(new LeaderIdentity(parts[0], parts[1]));
            }
            Matcher ports = parts.length == 3 ? PORTS.matcher(parts[1]) : null;
            if (ports != null && ports.matches()) {
                return Optional.of(new LeaderIdentity(parts[0], parts[2], Integer.parseInt(ports.group(1)), Integer.parseInt(ports.group(2))));
            }
        } catch (IllegalArgumentException notOurs) {
            // empty parts or ports out of range: not an identity Muster wrote
        }
        return Optional.empty();
    }
}
