package dev.muster.core.scheduler;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Filters waiting for a pod the informers have not shown yet. kube-scheduler's informer and Muster's see a new pod at
 * nearly the same moment, but not in a fixed order: a filter about a pod Muster's informer delivers a few milliseconds
 * later waits for it here instead of being answered with an error (which kube-scheduler would back off for a second or
 * more). Only pods that never arrive within the wait are refused.
 *
 * <p>Who owns what: {@link #await} and {@link #arrived} are called under the core's lock ({@link GangScheduler}), so an
 * arrival either happened before a waiter registered (the caller then sees the pod and does not wait) or finds the
 * waiter registered: none is lost. The waiters' map is a {@link ConcurrentHashMap} so a waiter whose time ran out removes
 * itself from whatever thread ran the timer, without the core's lock. The recently deleted uids are confined to the core's
 * lock. Arrivals are completed by the caller of {@link #arrived} after it releases the lock (the outbox), so no waiter's
 * continuation runs under it.
 *
 * <p>Bounded: at most {@link #MAX_WAITING} uids waited for at once (a further filter is answered at once, as before), and
 * the last {@link #MAX_DELETED} uids the informers deleted are remembered so a filter about a pod already gone is answered
 * at once rather than after the whole wait. One waiter per uid is expected (kube-scheduler filters a pod once at a time);
 * concurrent waiters for one uid share the arrival until the first one's wait ends (a later one then waits out its own
 * bound and is answered as before).
 */
final class PodArrivals {
    static final int MAX_WAITING = 10_000;
    static final int MAX_DELETED = 4_096;

    private final Map<String, CompletableFuture<Boolean>> waiting = new ConcurrentHashMap<>();
    /** Guarded by the core's lock. */
    private final Map<String, Boolean> deleted = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > MAX_DELETED;
        }
    };

    /**
     * Under the core's lock, for a uid the books do not hold: completes with true when the informers show it, false after
     * {@code within}, at once false when it was deleted recently or too many filters already wait.
     */
    CompletableFuture<Boolean> await(String uid, Duration within) {
        if (deleted.containsKey(uid) || within.isZero() || within.isNegative()) {
            return CompletableFuture.completedFuture(false);
        }
        CompletableFuture<Boolean> arrival = waiting.get(uid);
        if (arrival == null) {
            if (waiting.size() >= MAX_WAITING) {
                return CompletableFuture.completedFuture(false);
            }
            arrival = new CompletableFuture<>();
            waiting.put(uid, arrival);
        }
        CompletableFuture<Boolean> shared = arrival;
        CompletableFuture<Boolean> mine = arrival.copy().completeOnTimeout(false, within.toNanos(), TimeUnit.NANOSECONDS);
        mine.thenAccept(seen -> {
            if (!seen) {
                waiting.remove(uid, shared); // gave up: nothing is kept for a pod that never came
            }
        });
        return mine;
    }

    /**
     * Under the core's lock, when the informers show {@code uid}: the arrival its waiters wait for, to be completed
     * with true once the lock is released; null when nobody waits (the common case: a map look-up).
     */
    CompletableFuture<Boolean> arrived(String uid) {
        if (!deleted.isEmpty()) {
            deleted.remove(uid); // shown again (a relist after a stale delete): it exists
        }
        return waiting.isEmpty() ? null : waiting.remove(uid);
    }

    /** Under the core's lock, when the informers delete {@code uid}: a filter about it later is answered at once. */
    void deleted(String uid) {
        deleted.put(uid, Boolean.TRUE);
    }

    /** Uids waited for now (tests). */
    int waiting() {
        return waiting.size();
    }
}
