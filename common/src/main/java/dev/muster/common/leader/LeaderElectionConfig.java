package dev.muster.common.leader;

import java.time.Duration;
import java.util.Objects;

/**
 * Election timings, with Kubernetes' component defaults: a candidate takes over {@code leaseDuration} after it last
 * saw the holder renew; the leader renews every {@code retryPeriod} and steps down when it has not renewed for
 * {@code renewDeadline}. {@code renewDeadline < leaseDuration} is what keeps two leaders from overlapping.
 */
public record LeaderElectionConfig(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    public static final LeaderElectionConfig DEFAULTS =
            new LeaderElectionConfig(Duration.ofSeconds(15), Duration.ofSeconds(10), Duration.ofSeconds(2));

    public LeaderElectionConfig {
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        Objects.requireNonNull(renewDeadline, "renewDeadline");
        Objects.requireNonNull(retryPeriod, "retryPeriod");
        if (retryPeriod.isZero() || retryPeriod.isNegative()) {
            throw new IllegalArgumentException("retryPeriod must be positive, got " + retryPeriod);
        }
        if (renewDeadline.compareTo(retryPeriod) <= 0) {
            throw new IllegalArgumentException("renewDeadline (" + renewDeadline + ") must exceed retryPeriod (" + retryPeriod + ")");
        }
        if (leaseDuration.compareTo(renewDeadline) <= 0) {
            throw new IllegalArgumentException("leaseDuration (" + leaseDuration + ") must exceed renewDeadline (" + renewDeadline + ")");
        }
        if (leaseDuration.toSeconds() < 1) {
            throw new IllegalArgumentException("leaseDuration must be at least 1s (the Lease stores whole seconds), got " + leaseDuration);
        }
    }
}
