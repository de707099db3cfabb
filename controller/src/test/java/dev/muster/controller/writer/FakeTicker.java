package dev.muster.controller.writer;

import java.util.function.LongSupplier;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A monotonic nanosecond clock tests move by hand. Thread-safe. */
public final class FakeTicker implements LongSupplier {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    @Override
    public long getAsLong() {
        return now.get();
    }

    public void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }
}
