package dev.muster.controller.writer;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker tests move by hand. Thread-safe. */
public final class FakeTicker implements Ticker {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long nanos() {
        return now.get();
    }

    public void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }
}
