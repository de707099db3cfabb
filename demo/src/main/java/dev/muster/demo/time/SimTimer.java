package dev.muster.demo.time;

import java.time.Duration;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Runs tasks when {@link SimClock simulated time} reaches them, one at a time, on one daemon thread, in order
 * of due time (ties in submission order). A paused clock holds every task back. Tasks should be short (they
 * call into the embedded cluster); a task that throws is logged and the timer goes on.
 *
 * <p>Thread-safe: {@code lock} guards {@code tasks}, {@code sequence} and {@code stopped}; tasks run outside
 * it. The thread re-checks the clock at least every {@link #MAX_WAIT}, so a pause or resume takes effect
 * without being signalled.
 */
public final class SimTimer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(SimTimer.class.getName());
    static final Duration MAX_WAIT = Duration.ofMillis(20);

    private record Task(long at, long sequence, Runnable action) {}

    private final SimClock clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final PriorityQueue<Task> tasks = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
            : Long.compare(a.sequence, b.sequence)); // guarded by lock
    private long sequence; // guarded by lock
    private boolean stopped; // guarded by lock
    private long[] lateness = new long[1024]; // guarded by lock: per task run, simulated nanoseconds after its due time
    private int ran; // guarded by lock
    private final Thread thread;

    public SimTimer(SimClock clock, String name) {
        this.clock = clock;
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::run);
        thread.start();
    }

    /** Runs {@code action} once simulated time reaches {@code simNanos} (at once if it has). */
    public void at(long simNanos, Runnable action) {
        lock.lock();
        try {
            if (stopped) {
                return;
            }
            tasks.add(new Task(simNanos, sequence++, action));
            changed.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Runs {@code action} after {@code simDelay} of simulated time. */
    public void after(Duration simDelay, Runnable action) {
        at(clock.nanos() + simDelay.toNanos(), action);
    }

    /**
     * For every task run so far, how late it ran (simulated nanoseconds after its due time): the simulated clock runs
     * ahead of what the machine gets done when these grow.
     */
    public long[] lateness() {
        lock.lock();
        try {
            return java.util.Arrays.copyOf(lateness, ran);
        } finally {
            lock.unlock();
        }
    }

    /** Tasks not yet run. */
    public int pending() {
        lock.lock();
        try {
            return tasks.size();
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        while (true) {
            Task due;
            lock.lock();
            try {
                while (true) {
                    if (stopped) {
                        return;
                    }
                    Task head = tasks.peek();
                    long wait = head == null ? MAX_WAIT.toNanos() : clock.realNanosUntil(head.at);
                    if (head != null && wait == 0) {
                        due = tasks.poll();
                        if (ran == lateness.length) {
                            lateness = java.util.Arrays.copyOf(lateness, ran * 2);
                        }
                        lateness[ran++] = Math.max(0, clock.nanos() - due.at);
                        break;
                    }
                    changed.awaitNanos(Math.min(wait, MAX_WAIT.toNanos()));
                }
            } catch (InterruptedException e) {
                return;
            } finally {
                lock.unlock();
            }
            try {
                due.action.run();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, "simulated-time task failed", e);
            }
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            stopped = true;
            tasks.clear();
            changed.signal();
        } finally {
            lock.unlock();
        }
        if (Thread.currentThread() == thread) {
            return; // closed by one of its own tasks: the loop ends after it
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
