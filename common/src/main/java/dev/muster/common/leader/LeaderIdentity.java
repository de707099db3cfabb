package dev.muster.common.leader;

import java.util.Objects;
import java.util.Optional;

/**
 * A Lease holder identity {@code <POD_NAME>_<POD_IP>}. Pod names are DNS subdomains (no underscore) and IPs (v4 or
 * v6) contain none either, so the last underscore separates them.
 */
public record LeaderIdentity(String podName, String podIp) {
    public LeaderIdentity {
        Objects.requireNonNull(podName, "podName");
        Objects.requireNonNull(podIp, "podIp");
        if (podName.isEmpty() || podName.contains("_")) {
            throw new IllegalArgumentException("pod name \"" + podName + "\" must be non-empty and contain no '_'");
        }
        if (podIp.isEmpty() || podIp.contains("_")) {
            throw new IllegalArgumentException("pod IP \"" + podIp + "\" must be non-empty and contain no '_'");
        }
    }

    /** The identity string written to the Lease. */
    @Override
    public String toString() {
        return podName + "_" + podIp;
    }

    /** The address part of a holder identity, or empty when it has none (released, or written by another tool). */
    public static Optional<String> addressOf(String holderIdentity) {
        if (holderIdentity == null) {
            return Optional.empty();
        }
        int cut = holderIdentity.lastIndexOf('_');
        if (cut <= 0 || cut == holderIdentity.length() - 1) {
            return Optional.empty();
        }
        return Optional.of(holderIdentity.substring(cut + 1));
    }
}
