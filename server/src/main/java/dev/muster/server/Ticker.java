package dev.muster.server;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs one task periodically on its own daemon thread, for the life of the process: a run that throws — any
 * {@link Throwable}, an {@link Error} too — is logged and the next run comes as planned. (A
 * {@link ScheduledExecutorService} stops a periodic task for good the first time it throws; the extender's tick ends
 * reservation deadlines, admits waiting gangs and ends holds, so it must never stop.) Thread-safe.
 */
public final class Ticker implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Ticker.class.getName());

    private final ScheduledExecutorService executor;

    /** Starts running {@code task} every {@code period} (first after one period); {@code name} names the thread. */
    public Ticker(String name, Duration period, Runnable task) {
        executor = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name(name).factory());
        long ms = Math.max(1, period.toMillis());
        executor.scheduleWithFixedDelay(() -> runSurviving(name, task), ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} once; whatever it throws is logged, never rethrown. */
    static void runSurviving(String name, Runnable task) {
        try {
            task.run();
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.ERROR, name + " failed (it runs again at its next tick)", t);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
