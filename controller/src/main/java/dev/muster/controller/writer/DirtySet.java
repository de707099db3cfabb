package dev.muster.controller.writer;

import java.util.function.LongSupplier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.ToIntFunction;

/**
 * The objects whose status may need writing: a de-duplicating set with one entry per object, ever.
 *
 * <ul>
 *   <li>{@link #mark} adds a key unless it is already pending; re-marking a pending key (ready or backing off)
 *       is a no-op, so a key's place in line and its backoff are kept. The entry remembers when it was first
 *       marked (for lag).</li>
 *   <li>{@link #poll} takes the oldest ready key out; the caller then either is done with it, puts it back
 *       unchanged ({@link #requeue}, e.g. out of API budget) or puts it back to retry later ({@link #retry}:
 *       attempts + 1, not due before the given time). Keys not yet due stay pending;
 *       {@link #promoteDue} makes the due ones ready.</li>
 *   <li>{@link #remove} drops a deleted object's entry, whatever its state.</li>
 * </ul>
 * The set therefore never holds more entries than there are distinct keys marked and not removed — the
 * number of objects — however many times they change.
 *
 * <p>Keys may be sorted into <em>lanes</em> (the controller puts its few Queues in one lane and its many
 * PodGroups in another): {@link #poll} takes from the non-empty lanes in turn, oldest first within a lane, so a
 * lane with few keys is not stuck behind thousands of another's when the write budget is short. With one lane
 * the set is plain first-marked-first-out.
 *
 * <p>This class is thread-safe: {@code lock} guards {@code ready}, {@code delayed} and {@code nextLane}; a key is
 * in at most one of the maps. No method calls out while holding the lock (the lane function must be pure).
 * Entries returned are immutable.
 */
public final class DirtySet<K> {
    /** A key taken out of the set: when it was first marked and how many writes of it failed in a row. */
    public record Entry<K>(K key, long firstMarkedNanos, int attempts) {}

    private static final class Pending {
        final long firstMarked;
        final int attempts;
        final long due;

        Pending(long firstMarked, int attempts, long due) {
            this.firstMarked = firstMarked;
            this.attempts = attempts;
            this.due = due;
        }
    }

    private final Object lock = new Object();
    private final LongSupplier ticker;
    private final ToIntFunction<K> laneOf;
    private final LinkedHashMap<K, Pending>[] ready; // guarded by lock; per lane, oldest first
    private final Map<K, Pending> delayed = new HashMap<>(); // guarded by lock; backing off
    private int nextLane; // guarded by lock

    /** A set with one lane. */
    public DirtySet(LongSupplier ticker) {
        this(ticker, 1, k -> 0);
    }

    /** A set whose keys go to {@code laneOf(key)} in {@code [0, lanes)}. */
    @SuppressWarnings("unchecked")
    public DirtySet(LongSupplier ticker, int lanes, ToIntFunction<K> laneOf) {
        this.ticker = Objects.requireNonNull(ticker, "ticker");
        this.laneOf = Objects.requireNonNull(laneOf, "laneOf");
        if (lanes < 1) {
            throw new IllegalArgumentException("lanes must be at least 1, got " + lanes);
        }
        this.ready = new LinkedHashMap[lanes];
        for (int i = 0; i < lanes; i++) {
            ready[i] = new LinkedHashMap<>();
        }
    }

    private LinkedHashMap<K, Pending> laneFor(K key) { // lock held
        return ready[laneOf.applyAsInt(key)];
    }

    private boolean isReady(K key) { // lock held
        return laneFor(key).containsKey(key);
    }

    /** Marks {@code key} dirty; false when it was already pending. */
    public boolean mark(K key) {
        long now = ticker.getAsLong();
        synchronized (lock) {
            if (isReady(key) || delayed.containsKey(key)) {
                return false;
            }
            laneFor(key).put(key, new Pending(now, 0, now));
            return true;
        }
    }

    /** Takes the oldest ready key of the next non-empty lane out of the set, or null when none is ready. */
    public Entry<K> poll() {
        synchronized (lock) {
            for (int i = 0; i < ready.length; i++) {
                int lane = (nextLane + i) % ready.length;
                Iterator<Map.Entry<K, Pending>> it = ready[lane].entrySet().iterator();
                if (it.hasNext()) {
                    Map.Entry<K, Pending> e = it.next();
                    it.remove();
                    nextLane = (lane + 1) % ready.length;
                    return new Entry<>(e.getKey(), e.getValue().firstMarked, e.getValue().attempts);
                }
            }
            return null;
        }
    }

    /** Puts a polled key back as it was (ready, same attempts), merging with a mark made meanwhile. */
    public void requeue(Entry<K> entry) {
        synchronized (lock) {
            Pending meanwhile = laneFor(entry.key()).get(entry.key());
            long first = meanwhile == null ? entry.firstMarkedNanos() : Math.min(meanwhile.firstMarked, entry.firstMarkedNanos());
            Pending backingOff = delayed.get(entry.key());
            if (backingOff != null) {
                delayed.put(entry.key(), new Pending(Math.min(first, backingOff.firstMarked), backingOff.attempts, backingOff.due));
            } else {
                laneFor(entry.key()).put(entry.key(), new Pending(first, entry.attempts(), 0));
            }
        }
    }

    /**
     * Puts a polled key back after a failed write: attempts + 1, not ready before {@code dueNanos}. A mark made
     * while the write was in flight is merged into this one entry (it keeps the older first-marked time).
     */
    public void retry(Entry<K> entry, long dueNanos) {
        synchronized (lock) {
            Pending meanwhile = laneFor(entry.key()).remove(entry.key());
            Pending backingOff = delayed.get(entry.key());
            long first = entry.firstMarkedNanos();
            if (meanwhile != null) {
                first = Math.min(first, meanwhile.firstMarked);
            }
            long due = dueNanos;
            if (backingOff != null) {
                first = Math.min(first, backingOff.firstMarked);
                due = Math.max(due, backingOff.due);
            }
            delayed.put(entry.key(), new Pending(first, entry.attempts() + 1, due));
        }
    }

    /** Makes every backing-off key whose time has come ready again; returns how many. */
    public int promoteDue(long nowNanos) {
        synchronized (lock) {
            if (delayed.isEmpty()) {
                return 0;
            }
            List<K> due = new ArrayList<>();
            delayed.forEach((k, p) -> {
                if (p.due - nowNanos <= 0) {
                    due.add(k);
                }
            });
            for (K k : due) {
                laneFor(k).put(k, delayed.remove(k));
            }
            return due.size();
        }
    }

    /** Drops {@code key}'s entry (the object is gone); true when there was one. */
    public boolean remove(K key) {
        synchronized (lock) {
            return laneFor(key).remove(key) != null | delayed.remove(key) != null;
        }
    }

    public boolean contains(K key) {
        synchronized (lock) {
            return isReady(key) || delayed.containsKey(key);
        }
    }

    /** Entries pending, ready or backing off. */
    public int size() {
        synchronized (lock) {
            int n = delayed.size();
            for (LinkedHashMap<K, Pending> lane : ready) {
                n += lane.size();
            }
            return n;
        }
    }

    public int backingOff() {
        synchronized (lock) {
            return delayed.size();
        }
    }

    /** The first-marked time of the oldest pending entry, or {@code nowNanos} when none is pending. O(pending). */
    public long oldestMarkNanos(long nowNanos) {
        synchronized (lock) {
            long oldest = nowNanos;
            for (LinkedHashMap<K, Pending> lane : ready) {
                for (Pending p : lane.values()) {
                    if (p.firstMarked - oldest < 0) {
                        oldest = p.firstMarked;
                    }
                }
            }
            for (Pending p : delayed.values()) {
                if (p.firstMarked - oldest < 0) {
                    oldest = p.firstMarked;
                }
            }
            return oldest;
        }
    }
}
