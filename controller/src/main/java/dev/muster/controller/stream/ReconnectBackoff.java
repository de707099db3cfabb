package dev.muster.controller.stream;

import java.time.Duration;
import java.util.Objects;

/**
 * Exponential reconnect delays: {@code initial}, then times {@code multiplier} per failed attempt, capped
 * at {@code max}; {@link #reset()} (on a message received) starts over.
 *
 * <p>Not thread-safe: confined to its owner (the stream client's synchronization context).
 */
public final class ReconnectBackoff {
    /** The delays' shape. */
    public record Policy(Duration initial, Duration max, double multiplier) {
        public static final Policy DEFAULT = new Policy(Duration.ofMillis(100), Duration.ofSeconds(10), 2.0);

        public Policy {
            Objects.requireNonNull(initial, "initial");
            Objects.requireNonNull(max, "max");
            if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0 || multiplier < 1.0) {
                throw new IllegalArgumentException("backoff needs 0 < initial <= max and multiplier >= 1, got " + initial + ", " + max + ", " + multiplier);
            }
        }
    }

    private final Policy policy;
    private Duration next;

    public ReconnectBackoff(Policy policy) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.next = policy.initial();
    }

    /** The delay before the next attempt; grows the one after. */
    public Duration next() {
        Duration current = next;
        long grownNanos = (long) Math.min(policy.max().toNanos(), current.toNanos() * policy.multiplier());
        next = Duration.ofNanos(grownNanos);
        return current;
    }

    public void reset() {
        next = policy.initial();
    }
}
