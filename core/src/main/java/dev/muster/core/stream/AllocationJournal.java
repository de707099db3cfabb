package dev.muster.core.stream;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.time.InstantSource;

/**
 * The extender's outgoing allocation stream: a bounded window of the most recent events plus the running
 * totals of everything ever appended, so a reader that fell out of the window can restart from a snapshot.
 *
 * <p>This class is thread-safe. {@code lock} guards {@code ring}, {@code last} and {@code totals}; a
 * snapshot is therefore exactly the fold of events 1..{@code sequence}. Memory is bounded by the window
 * size plus O(queues + gangs), whatever the event rate and however slow the readers are: readers pull
 * ({@link #readAfter}) and are only <em>notified</em> of appends, never pushed into a buffer.
 *
 * <p>Listeners run on the appending thread after the lock is released ({@link #append}), or when the appender
 * says so ({@link #record} then {@link #wake}: the scheduling core records under its own lock and wakes the readers
 * once that lock is released, so no listener runs under it); they must not block (schedule a drain, flip a flag).
 *
 * <p>Sequences only mean something within one journal: a new journal (the extender restarted, or another
 * replica became the leader) counts from 1 again over a different history. {@link #id()} names this
 * journal so that a reader can tell whether its cursor belongs here; a cursor from another journal must
 * be resynchronised from a snapshot even when its number happens to lie inside this window.
 */
public final class AllocationJournal {
    private static final System.Logger LOG = System.getLogger(AllocationJournal.class.getName());

    private final ReentrantLock lock = new ReentrantLock();
    private final SequencedEvent[] ring; // guarded by lock; slot = sequence % length
    private long last; // guarded by lock; sequence of the newest event, 0 before the first
    private final AllocationTotals totals = new AllocationTotals(); // guarded by lock
    private final CopyOnWriteArrayList<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final InstantSource clock; // wall time, stamped on every event
    private final String id;

    /** A journal with a fresh random {@link #id()}. */
    public AllocationJournal(int window, InstantSource clock) {
        this(window, clock, UUID.randomUUID().toString());
    }

    public AllocationJournal(int window, InstantSource clock, String id) {
        if (window < 1) {
            throw new IllegalArgumentException("journal window must be at least 1, got " + window);
        }
        Objects.requireNonNull(id, "id");
        if (id.isEmpty()) {
            throw new IllegalArgumentException("journal id must not be empty");
        }
        this.ring = new SequencedEvent[window];
        this.clock = clock;
        this.id = id;
    }

    /** Names this journal's history: unique per journal instance (random unless given). */
    public String id() {
        return id;
    }

    /** Appends {@code event}, returns its sequence, and wakes the listeners (a listener that throws is logged). */
    public long append(AllocationEvent event) {
        long seq = record(event);
        wake();
        return seq;
    }

    /** Appends {@code event} and returns its sequence without waking the listeners: the caller {@link #wake}s them. */
    public long record(AllocationEvent event) {
        long seq;
        lock.lock();
        try {
            seq = ++last;
            ring[(int) (seq % ring.length)] = new SequencedEvent(seq, clock.millis(), event);
            totals.apply(event);
        } finally {
            lock.unlock();
        }
        return seq;
    }

    /** Wakes the listeners (a listener that throws is logged, and the others are still woken). */
    public void wake() {
        for (Runnable l : listeners) {
            try {
                l.run();
            } catch (RuntimeException e) {
                // The event is already committed: a broken wake-up must not fail the append (nor skip the
                // other readers' wake-ups).
                LOG.log(System.Logger.Level.WARNING, "allocation journal listener failed", e);
            }
        }
    }

    public long lastSequence() {
        lock.lock();
        try {
            return last;
        } finally {
            lock.unlock();
        }
    }

    public int window() {
        return ring.length;
    }

    /** What a reader gets: either the next events, or word that it must restart from a snapshot. */
    public sealed interface Read {
        /** Events after the asked sequence, oldest first; empty when the reader is up to date. */
        record Events(List<SequencedEvent> events) implements Read {}

        /** The asked sequence is older than the window (or from the future, e.g. after a restart). */
        record SnapshotRequired(AllocationSnapshot snapshot) implements Read {}
    }

    /**
     * Up to {@code max} events with sequence > {@code after}. When {@code after} is no longer in the
     * window, or is ahead of the journal (the extender restarted and counts anew), the answer is a
     * snapshot cut at the current sequence instead.
     */
    public Read readAfter(long after, int max) {
        if (max < 1) {
            throw new IllegalArgumentException("read size must be at least 1, got " + max);
        }
        lock.lock();
        try {
            long oldest = Math.max(1, last - ring.length + 1);
            if (after > last || after < oldest - 1) {
                return new Read.SnapshotRequired(totals.snapshot(last));
            }
            int n = (int) Math.min(max, last - after);
            List<SequencedEvent> out = new ArrayList<>(n);
            for (long s = after + 1; s <= after + n; s++) {
                out.add(ring[(int) (s % ring.length)]);
            }
            return new Read.Events(out);
        } finally {
            lock.unlock();
        }
    }

    /** The totals of everything appended so far. */
    public AllocationSnapshot snapshot() {
        lock.lock();
        try {
            return totals.snapshot(last);
        } finally {
            lock.unlock();
        }
    }

    /** Registers a non-blocking wake-up; returns the handle that removes it. */
    public Runnable subscribe(Runnable onAppend) {
        listeners.add(onAppend);
        return () -> listeners.remove(onAppend);
    }
}
