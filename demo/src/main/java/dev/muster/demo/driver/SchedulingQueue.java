package dev.muster.demo.driver;

import dev.muster.demo.cluster.ClusterPod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * kube-scheduler's scheduling queue, for pending pods of this scheduler. Every pod is in exactly one place:
 *
 * <pre>
 *   add ──▶ ACTIVE ──pop──▶ IN_FLIGHT ──bound──▶ (gone)
 *             ▲                 │   │
 *             │   unschedulable │   │ error (failed call, failed bind)
 *             │                 ▼   ▼
 *             │        UNSCHEDULABLE  BACKOFF ──backoff over──▶ ACTIVE
 *             │                 │
 *             └─ cluster event, or flush after unschedulableFlush (to BACKOFF while still backing off)
 * </pre>
 * ACTIVE is ordered by priority (high first), then creation time (kube-scheduler's PrioritySort). A pod's
 * backoff after its n-th failed attempt is {@code initial × 2^(n-1)}, capped at {@code max}. As in
 * kube-scheduler, a pod that turns out unschedulable in a cycle during which a cluster event asked to move
 * pods goes to BACKOFF, not to the unschedulable pool, so that event is not missed. A pod bound or deleted
 * while IN_FLIGHT is dropped when its cycle reports back.
 *
 * <p>Thread-safe: {@code lock} guards every field; {@link #pop} waits on {@code ready}. Times are real
 * nanoseconds from {@code clock}.
 */
public final class SchedulingQueue {
    /** Where a pod is. */
    public enum Place { ACTIVE, BACKOFF, UNSCHEDULABLE, IN_FLIGHT }

    /** A queued pod. Fields other than {@code pod} are guarded by the queue's lock. */
    public static final class Entry {
        private volatile ClusterPod pod;
        private final long sequence;
        private Place place;
        private int attempts;
        private long lastFailure;
        private long cycle;
        private long unschedulableSince;
        private final long addedAt;
        private volatile long firstTryWait = -1;

        private Entry(ClusterPod pod, long sequence, long addedAt) {
            this.pod = pod;
            this.sequence = sequence;
            this.addedAt = addedAt;
        }

        /**
         * How long (on the queue's clock) the pod waited from entering the queue to its first scheduling cycle; -1 after
         * the first cycle's pop has been read once (each pod's first wait is counted once).
         */
        public long takeFirstTryWait() {
            long w = firstTryWait;
            firstTryWait = -1;
            return w;
        }

        /** The pod as last seen (the scheduling cycle uses the value it popped). */
        public ClusterPod pod() {
            return pod;
        }
    }

    private static final long LEFTOVER_CHECK_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier clock;
    private final Duration initialBackoff;
    private final Duration maxBackoff;
    private final Duration unschedulableFlush;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    // ---- guarded by lock ----
    private final Map<String, Entry> entries = new HashMap<>();
    private final PriorityQueue<Entry> active = new PriorityQueue<>(Comparator
            .comparingInt((Entry e) -> -e.pod.priority())
            .thenComparingLong(e -> e.pod.createdAt())
            .thenComparingLong(e -> e.sequence));
    private final PriorityQueue<Entry> backoff = new PriorityQueue<>(Comparator.comparingLong(this::backoffEnds));
    private final Map<String, Entry> unschedulable = new HashMap<>();
    private long sequence;
    private long schedulingCycle;
    private long moveRequestCycle = -1;
    private long moves;
    private long lastLeftoverFlush;

    public SchedulingQueue(LongSupplier clock, Duration initialBackoff, Duration maxBackoff, Duration unschedulableFlush) {
        this.clock = clock;
        this.initialBackoff = initialBackoff;
        this.maxBackoff = maxBackoff;
        this.unschedulableFlush = unschedulableFlush;
    }

    /** A pending pod was added or changed. A new pod goes to ACTIVE; a known one just gets the newer value. */
    public void addOrUpdate(ClusterPod pod) {
        lock.lock();
        try {
            Entry e = entries.get(pod.uid());
            if (e != null) {
                e.pod = pod;
                return;
            }
            e = new Entry(pod, sequence++, clock.getAsLong());
            entries.put(pod.uid(), e);
            toActive(e);
        } finally {
            lock.unlock();
        }
    }

    /** The pod was bound (by anyone) or deleted: it leaves the queue. */
    public void remove(String uid) {
        lock.lock();
        try {
            Entry e = entries.remove(uid);
            if (e == null) {
                return;
            }
            switch (e.place) {
                case ACTIVE -> active.remove(e);
                case BACKOFF -> backoff.remove(e);
                case UNSCHEDULABLE -> unschedulable.remove(uid);
                case IN_FLIGHT -> { }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The next pod to schedule, waiting up to {@code timeout}; null when none became ready. */
    public Entry pop(Duration timeout) throws InterruptedException {
        lock.lock();
        try {
            long deadline = clock.getAsLong() + timeout.toNanos();
            while (true) {
                long now = clock.getAsLong();
                flushBackoff(now);
                flushUnschedulableLeftovers(now);
                Entry e = active.poll();
                if (e != null) {
                    e.place = Place.IN_FLIGHT;
                    e.cycle = ++schedulingCycle;
                    if (e.attempts++ == 0) {
                        e.firstTryWait = now - e.addedAt;
                    }
                    return e;
                }
                long left = deadline - now;
                if (left <= 0) {
                    return null;
                }
                Entry next = backoff.peek();
                long wait = next == null ? left : Math.min(left, Math.max(1, backoffEnds(next) - now));
                ready.awaitNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(200)));
            }
        } finally {
            lock.unlock();
        }
    }

    /** The cycle found no node: to the unschedulable pool (or BACKOFF if a move was requested during the cycle). */
    public void unschedulable(Entry e) {
        lock.lock();
        try {
            if (!inFlight(e)) {
                return;
            }
            e.lastFailure = clock.getAsLong();
            if (moveRequestCycle >= e.cycle) {
                toBackoff(e);
            } else {
                e.place = Place.UNSCHEDULABLE;
                e.unschedulableSince = e.lastFailure;
                unschedulable.put(e.pod.uid(), e);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The cycle or its bind failed: to BACKOFF. */
    public void failed(Entry e) {
        lock.lock();
        try {
            if (!inFlight(e)) {
                return;
            }
            e.lastFailure = clock.getAsLong();
            toBackoff(e);
        } finally {
            lock.unlock();
        }
    }

    /** The pod was bound by its cycle. */
    public void done(Entry e) {
        remove(e.pod.uid());
    }

    /**
     * A cluster event that may make unschedulable pods schedulable (a pod finished or was deleted, a node was
     * added): every pod in the unschedulable pool moves to ACTIVE, or to BACKOFF while it is still backing off.
     */
    public void moveAllToActiveOrBackoff() {
        lock.lock();
        try {
            moveRequestCycle = schedulingCycle;
            if (unschedulable.isEmpty()) {
                return;
            }
            moves++;
            long now = clock.getAsLong();
            for (Entry e : new ArrayList<>(unschedulable.values())) {
                unschedulable.remove(e.pod.uid());
                if (backoffEnds(e) > now) {
                    toBackoff(e);
                } else {
                    toActive(e);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean inFlight(Entry e) { // lock held
        return e.place == Place.IN_FLIGHT && entries.get(e.pod.uid()) == e;
    }

    private void toActive(Entry e) { // lock held
        e.place = Place.ACTIVE;
        active.add(e);
        ready.signal();
    }

    private void toBackoff(Entry e) { // lock held
        e.place = Place.BACKOFF;
        backoff.add(e);
        ready.signal();
    }

    private long backoffEnds(Entry e) {
        return e.lastFailure + backoffDuration(e.attempts).toNanos();
    }

    /** kube-scheduler's backoff after {@code attempts} attempts: initial doubled per extra attempt, capped. */
    Duration backoffDuration(int attempts) {
        Duration d = initialBackoff;
        for (int i = 1; i < attempts && d.compareTo(maxBackoff) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxBackoff) > 0 ? maxBackoff : d;
    }

    private void flushBackoff(long now) { // lock held
        Entry e;
        while ((e = backoff.peek()) != null && backoffEnds(e) <= now) {
            backoff.poll();
            toActive(e);
        }
    }

    private void flushUnschedulableLeftovers(long now) { // lock held
        if (unschedulable.isEmpty() || now - lastLeftoverFlush < LEFTOVER_CHECK_NANOS) {
            return;
        }
        lastLeftoverFlush = now;
        List<Entry> stale = new ArrayList<>();
        for (Entry e : unschedulable.values()) {
            if (now - e.unschedulableSince >= unschedulableFlush.toNanos()) {
                stale.add(e);
            }
        }
        for (Entry e : stale) {
            unschedulable.remove(e.pod.uid());
            if (backoffEnds(e) > now) {
                toBackoff(e);
            } else {
                toActive(e);
            }
        }
    }

    /** How many pods are in each place. */
    public record Counts(int active, int backoff, int unschedulable, int inFlight, long moves) {
        public int pending() {
            return active + backoff + unschedulable + inFlight;
        }
    }

    public Counts counts() {
        lock.lock();
        try {
            int inFlight = entries.size() - active.size() - backoff.size() - unschedulable.size();
            return new Counts(active.size(), backoff.size(), unschedulable.size(), inFlight, moves);
        } finally {
            lock.unlock();
        }
    }

    /** Where a pod is, or null when it is not queued. */
    public Place placeOf(String uid) {
        lock.lock();
        try {
            Entry e = entries.get(uid);
            return e == null ? null : e.place;
        } finally {
            lock.unlock();
        }
    }
}
