package dev.muster.controller.writer;

import java.time.Duration;

/**
 * Per-object retry delay after failed writes: {@code initial × 2^(attempt-1)}, capped at {@code max}, and
 * never shorter than a server-sent Retry-After. Immutable.
 */
public record Backoff(Duration initial, Duration max) {
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(500), Duration.ofMinutes(2));

    public Backoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("backoff needs 0 < initial <= max, got " + initial + " and " + max);
        }
    }

    /** The delay before attempt {@code attempt + 1}, after {@code attempt} failures in a row (≥ 1). */
    public long delayNanos(int attempt, Duration retryAfter) {
        int shift = Math.min(Math.max(attempt, 1) - 1, 30);
        long d = initial.toNanos() << shift;
        if (d <= 0 || d > max.toNanos()) {
            d = max.toNanos();
        }
        if (retryAfter != null && retryAfter.toNanos() > d) {
            d = Math.min(retryAfter.toNanos(), max.toNanos());
        }
        return d;
    }
}
