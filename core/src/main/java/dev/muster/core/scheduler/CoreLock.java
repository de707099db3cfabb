package dev.muster.core.scheduler;

import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The scheduling core's one lock ({@link GangScheduler}'s class comment says what it guards). A call runs its body under
 * the lock; the outermost holder, before it lets go, gives room freed meanwhile to the pods waiting for it
 * ({@code beforeRelease}) and drains the actions the body queued ({@code queued}), then runs them with the lock
 * released, so no foreign code ever runs under it. Counts, without a lock, how often a caller found it held and how long
 * such callers waited.
 */
final class CoreLock {
    private static final System.Logger LOG = System.getLogger(GangScheduler.class.getName());

    private final ReentrantLock lock = new ReentrantLock();
    private final LongSupplier nanoTime;
    private final Runnable beforeRelease;
    private final Supplier<List<Runnable>> queued;
    private final LongAdder contended = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();

    /**
     * @param beforeRelease run under the lock by the outermost holder as it leaves
     * @param queued        drained under the lock by the outermost holder as it leaves; run after the release
     */
    CoreLock(LongSupplier nanoTime, Runnable beforeRelease, Supplier<List<Runnable>> queued) {
        this.nanoTime = nanoTime;
        this.beforeRelease = beforeRelease;
        this.queued = queued;
    }

    /** How often a caller found the lock held, and how long such callers waited in all. */
    GangScheduler.LockWaits waits() {
        return new GangScheduler.LockWaits(contended.sum(), waitNanos.sum());
    }

    /**
     * Runs {@code body} under the lock, then — with the lock released — the actions it queued. Re-entrant: a nested call
     * only runs its body; the outermost call runs every queued action once the lock is fully released.
     */
    <T> T call(Supplier<T> body) {
        List<Runnable> todo;
        T result = null;
        Throwable failed = null;
        if (!lock.tryLock()) {
            long waitFrom = nanoTime.getAsLong();
            lock.lock();
            contended.increment();
            waitNanos.add(nanoTime.getAsLong() - waitFrom);
        }
        try {
            result = body.get();
        } catch (RuntimeException | Error e) {
            failed = e;
        } finally {
            if (lock.getHoldCount() == 1) {
                beforeRelease.run();
            }
            todo = lock.getHoldCount() == 1 ? queued.get() : List.of();
            lock.unlock();
        }
        // run even when the body threw: what it already did queued these (a Binding POST for a bind it marked in flight,
        // a future it completed), and dropping them would leave the books holding work nobody finishes
        for (Runnable r : todo) {
            try {
                r.run();
            } catch (RuntimeException | Error ex) {
                LOG.log(System.Logger.Level.ERROR, "deferred action failed", ex);
            }
        }
        if (failed instanceof Error e) {
            throw e;
        }
        if (failed != null) {
            throw (RuntimeException) failed;
        }
        return result;
    }
}
