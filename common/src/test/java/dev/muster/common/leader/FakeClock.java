package dev.muster.common.leader;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock that moves only when told. Thread-safe. */
public final class FakeClock implements InstantSource {
    private Instant now;

    public FakeClock(Instant start) {
        this.now = start;
    }

    public FakeClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    @Override
    public synchronized Instant instant() {
        return now;
    }

    public synchronized void advance(Duration d) {
        now = now.plus(d);
    }
}
