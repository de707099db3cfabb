package dev.muster.server.http.wire;

import java.util.Objects;

/**
 * One entry of a prioritize answer ({@code HostPriority} on the wire).
 *
 * @param host  node name
 * @param score 0 to {@link #MAX_SCORE}; kube-scheduler scales it by the extender's weight
 */
public record HostPriority(String host, long score) {
    /** kube-scheduler's {@code MaxExtenderPriority}. */
    public static final long MAX_SCORE = 10;

    public HostPriority {
        Objects.requireNonNull(host, "host");
        if (score < 0 || score > MAX_SCORE) {
            throw new IllegalArgumentException("score " + score + " for " + host + " is outside 0.." + MAX_SCORE);
        }
    }
}
