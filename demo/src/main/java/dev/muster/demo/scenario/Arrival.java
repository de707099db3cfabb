package dev.muster.demo.scenario;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * When a workload's items arrive: a Poisson process of {@code perSecond} arrivals per simulated second,
 * starting at {@code start}. Immutable.
 */
public record Arrival(Duration start, double perSecond) {
    public Arrival {
        if (!(perSecond > 0)) {
            throw new IllegalArgumentException("arrival rate must be positive, got " + perSecond);
        }
    }

    /** The gap before the next arrival (exponentially distributed), in simulated nanoseconds. */
    public long nextGapNanos(RandomGenerator random) {
        double u = random.nextDouble();
        return (long) (-Math.log1p(-u) / perSecond * 1e9);
    }
}
