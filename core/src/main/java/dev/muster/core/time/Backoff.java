package dev.muster.core.time;

import java.time.Duration;

/**
 * Capped exponential backoff: {@code initial × 2^(failures-1)}, at most {@code max}. The one backoff policy: a
 * gang whose reservation expired (so it does not storm the scheduler), the controller's per-object write retries
 * (where a server's Retry-After raises the floor), and the allocation stream's reconnects
 * ({@code BackoffCounter} counts the failures). Immutable.
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

    /** Like {@link #delayAfter(int)}, but never shorter than {@code atLeast} (e.g. Retry-After), still capped. */
    public Duration delayAfter(int failures, Duration atLeast) {
        Duration d = delayAfter(Math.max(failures, 1));
        if (atLeast != null && atLeast.compareTo(d) > 0) {
            d = atLeast.compareTo(max) > 0 ? max : atLeast;
        }
        return d;
    }
}
