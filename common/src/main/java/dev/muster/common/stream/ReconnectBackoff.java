package dev.muster.common.stream;

import dev.muster.core.time.Backoff;
import java.time.Duration;
import java.util.Objects;

/**
 * The stream client's reconnect delays: the failed attempts since the last message, counted against a
 * {@link Backoff} ({@code initial}, doubling, capped at {@code max}); {@link #reset()} (on a message received)
 * starts over.
 *
 * <p>Not thread-safe: confined to its owner (the stream client's synchronization context).
 */
public final class ReconnectBackoff {
    /** 100 ms, doubling, at most 10 s. */
    public static final Backoff DEFAULT = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10));

    private final Backoff policy;
    private int failures;

    public ReconnectBackoff(Backoff policy) {
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
