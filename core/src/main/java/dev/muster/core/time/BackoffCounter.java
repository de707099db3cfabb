package dev.muster.core.time;

import java.time.Duration;
import java.util.Objects;

/**
 * Delays between attempts: the failures since the last success, counted against a {@link Backoff}
 * ({@code initial}, doubling, capped at {@code max}); {@link #reset()} (on success) starts over. Used for the
 * allocation stream's reconnects and for pacing watches that end at once.
 *
 * <p>Not thread-safe: confined to its owner.
 */
public final class BackoffCounter {
    /** 100 ms, doubling, at most 10 s (the stream's reconnects). */
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10));

    private final Backoff policy;
    private int failures;

    public BackoffCounter(Backoff policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        if (policy.initial().isZero()) {
            throw new IllegalArgumentException("backoff needs 0 < initial, got " + policy.initial());
        }
    }

    /** The delay before the next attempt; grows the one after. */
    public Duration next() {
        failures++;
        return policy.delayAfter(failures);
    }

    public void reset() {
        failures = 0;
    }
}
