package dev.muster.bench;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.function.LongSupplier;

/** {@link ControllerLoad}'s simulated time: the writer's ticker and the fold's clock. Confined to the driver's thread. */
final class ControllerLoadTime extends Clock implements LongSupplier {
    private static final Instant EPOCH = Instant.parse("2025-01-01T00:00:00Z");
    private long nanos;

    void set(long nanos) {
        this.nanos = nanos;
    }

    @Override
    public long getAsLong() {
        return nanos;
    }

    @Override
    public Instant instant() {
        return EPOCH.plusNanos(nanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
