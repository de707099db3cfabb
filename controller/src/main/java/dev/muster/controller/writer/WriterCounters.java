package dev.muster.controller.writer;

import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.core.status.StatusKey;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Plain counters of the writer's work. Thread-safe: every field is atomic; {@link #snapshot} is a copy. */
public final class WriterCounters implements WriterMetrics {
    private final AtomicLong writes = new AtomicLong();
    private final AtomicLong queueWrites = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong throttled = new AtomicLong();
    private final AtomicLongArray failures = new AtomicLongArray(Kind.values().length);
    private final AtomicLong maxLagNanos = new AtomicLong();
    private final AtomicLong lastLagNanos = new AtomicLong();

    /** A copy of the counters. {@code failures} counts failed writes, each of which scheduled one retry. */
    public record Snapshot(long writes, long queueWrites, long skipped, long throttled, Map<Kind, Long> failuresByKind,
                           long maxLagNanos, long lastLagNanos) {
        public long failures() {
            return failuresByKind.values().stream().mapToLong(Long::longValue).sum();
        }

        /** Every failure is retried: the same count, named for what it causes. */
        public long retries() {
            return failures();
        }
    }

    @Override
    public void written(StatusKey key, long lagNanos) {
        writes.incrementAndGet();
        if (key instanceof StatusKey.Queue) {
            queueWrites.incrementAndGet();
        }
        lastLagNanos.set(lagNanos);
        maxLagNanos.accumulateAndGet(lagNanos, Math::max);
    }

    @Override
    public void skipped(StatusKey key) {
        skipped.incrementAndGet();
    }

    @Override
    public void failed(StatusKey key, Kind kind) {
        failures.incrementAndGet(kind.ordinal());
    }

    @Override
    public void throttled() {
        throttled.incrementAndGet();
    }

    public Snapshot snapshot() {
        Map<Kind, Long> byKind = new EnumMap<>(Kind.class);
        for (Kind k : Kind.values()) {
            long n = failures.get(k.ordinal());
            if (n != 0) {
                byKind.put(k, n);
            }
        }
        return new Snapshot(writes.get(), queueWrites.get(), skipped.get(), throttled.get(), Map.copyOf(byKind),
                maxLagNanos.get(), lastLagNanos.get());
    }
}
