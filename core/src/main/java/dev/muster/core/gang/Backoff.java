package dev.muster.core.gang;

import java.time.Duration;

/**
 * The delay before a gang whose reservation expired is planned again: {@code initial × 2^(failures-1)},
 * capped at {@code max}, so a gang that cannot assemble does not storm the scheduler. Immutable.
 */
public record Backoff(Duration initial, Duration max) {
    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(60));

    public Backoff {
        if (initial.isNegative() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 <= initial <= max, got " + initial + ", " + max);
        }
    }

    /** Delay after the {@code failures}-th consecutive failure (1-based). */
    public Duration delayAfter(int failures) {
        if (failures <= 0) {
            return Duration.ZERO;
        }
        long nanos = initial.toNanos();
        for (int i = 1; i < failures && nanos < max.toNanos(); i++) {
            nanos *= 2;
        }
        return Duration.ofNanos(Math.min(nanos, max.toNanos()));
    }
}
