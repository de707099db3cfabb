package dev.muster.demo.time;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Scenario time: starts paused at 0, and while running advances {@code speed} simulated nanoseconds per real
 * nanosecond. {@link #pause()} freezes it (the demo pauses to compare the controller's Queue status with the
 * truth while nothing starts or finishes); {@link #resume()} continues from where it stood.
 *
 * <p>Thread-safe: every field but {@code speed} and {@code realNanos} is guarded by {@code this}.
 */
public final class SimClock {
    private final double speed;
    private final LongSupplier realNanos;
    private long anchorReal; // guarded by this: real time at the last resume
    private long anchorSim; // guarded by this: simulated time at the last resume (or the pause)
    private boolean paused = true; // guarded by this

    /** A clock on {@link System#nanoTime()}. */
    public SimClock(double speed) {
        this(speed, System::nanoTime);
    }

    public SimClock(double speed, LongSupplier realNanos) {
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be a positive number, got " + speed);
        }
        this.speed = speed;
        this.realNanos = realNanos;
    }

    /** Simulated nanoseconds since the scenario started. */
    public synchronized long nanos() {
        return paused ? anchorSim : anchorSim + (long) ((realNanos.getAsLong() - anchorReal) * speed);
    }

    public Duration now() {
        return Duration.ofNanos(nanos());
    }

    public double speed() {
        return speed;
    }

    public synchronized boolean paused() {
        return paused;
    }

    public synchronized void pause() {
        if (!paused) {
            anchorSim = nanos();
            paused = true;
        }
    }

    public synchronized void resume() {
        if (paused) {
            anchorReal = realNanos.getAsLong();
            paused = false;
        }
    }

    /** Real nanoseconds until simulated time reaches {@code simNanos}: 0 when it has, MAX_VALUE while paused. */
    public synchronized long realNanosUntil(long simNanos) {
        long left = simNanos - nanos();
        if (left <= 0) {
            return 0;
        }
        return paused ? Long.MAX_VALUE : (long) Math.ceil(left / speed);
    }

    /** A simulated duration in real time at this clock's speed. */
    public Duration toReal(Duration sim) {
        return Duration.ofNanos((long) (sim.toNanos() / speed));
    }
}
