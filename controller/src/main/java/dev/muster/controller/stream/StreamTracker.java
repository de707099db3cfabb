package dev.muster.controller.stream;

import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import java.time.InstantSource;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Passes the stream on to the fold and keeps score: events and snapshots applied, the age of the newest
 * event when it arrived (stream lag), and whether the stream has synced at least once.
 *
 * <p>Synced means a snapshot or an event was applied, or the stream client reported that it caught up
 * ({@link #onCaughtUp}: e.g. a journal that is still empty has nothing to send). Thread-safe: counters are atomic
 * and {@code onSynced} runs once, on the thread that first syncs.
 */
public final class StreamTracker implements AllocationListener {
    private final AllocationListener fold;
    private final InstantSource clock;
    private final Runnable onSynced;
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong snapshots = new AtomicLong();
    private final AtomicLong lastLagMillis = new AtomicLong();
    private final AtomicBoolean synced = new AtomicBoolean();

    public StreamTracker(AllocationListener fold, InstantSource clock, Runnable onSynced) {
        this.fold = Objects.requireNonNull(fold, "fold");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.onSynced = Objects.requireNonNull(onSynced, "onSynced");
    }

    @Override
    public void onSnapshot(AllocationSnapshot snapshot) {
        fold.onSnapshot(snapshot);
        snapshots.incrementAndGet();
        markSynced();
    }

    @Override
    public void onEvent(SequencedEvent event) {
        fold.onEvent(event);
        events.incrementAndGet();
        lastLagMillis.set(Math.max(0, clock.millis() - event.epochMillis()));
        markSynced();
    }

    @Override
    public void onCaughtUp() {
        markSynced();
    }

    /** The stream is live with nothing (more) to replay. */
    public void markSynced() {
        if (synced.compareAndSet(false, true)) {
            onSynced.run();
        }
    }

    public boolean synced() {
        return synced.get();
    }

    public long events() {
        return events.get();
    }

    public long snapshots() {
        return snapshots.get();
    }

    /** How old the newest event was when it was applied, in milliseconds. */
    public long lastLagMillis() {
        return lastLagMillis.get();
    }
}
