package dev.muster.demo.scenario;

import java.time.Duration;
import java.util.random.RandomGenerator;

/** A run time drawn uniformly (whole seconds) from {@code min..max}. Immutable. */
public record DurationRange(Duration min, Duration max) {
    public DurationRange {
        if (min.isNegative() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("duration range needs 0 <= min <= max, got " + min + ".." + max);
        }
    }

    public Duration draw(RandomGenerator random) {
        long lo = min.toMillis();
        long hi = max.toMillis();
        return Duration.ofMillis(hi == lo ? lo : lo + random.nextLong(hi - lo + 1));
    }
}
