package dev.muster.server.bind;

import java.time.Duration;
import java.util.Objects;

/**
 * How hard {@link KubeBinder} tries.
 *
 * @param budget         total time one bind may spend retrying transient failures (429, 5xx, I/O)
 * @param initialBackoff delay before the first retry; doubles per retry
 * @param maxBackoff     cap on one delay
 * @param maxConcurrent  POSTs in flight at once (a gang of hundreds binds at once; the API server throttles bursts)
 */
public record BindOptions(Duration budget, Duration initialBackoff, Duration maxBackoff, int maxConcurrent) {
    public static final BindOptions DEFAULTS =
            new BindOptions(Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofSeconds(5), 64);

    public BindOptions {
        Objects.requireNonNull(budget, "budget");
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        if (budget.isNegative() || initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("bind options: need budget >= 0 and 0 <= initialBackoff <= maxBackoff, got "
                    + budget + ", " + initialBackoff + ", " + maxBackoff);
        }
        if (maxConcurrent < 1) {
            throw new IllegalArgumentException("bind options: maxConcurrent must be at least 1, got " + maxConcurrent);
        }
    }
}
