package dev.muster.controller.writer;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one flush (status writes, then Events) every {@code --flush-interval} on one daemon thread (fixed delay, so a
 * slow flush is never overlapped). A flush that throws is logged and the loop goes on. Thread-safe.
 */
public final class FlushLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FlushLoop.class);

    private final Runnable flush;
    private final Duration interval;
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "muster-status-flush");
        t.setDaemon(true);
        return t;
    });

    public FlushLoop(Runnable flush, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("--flush-interval must be positive, got " + interval);
        }
        this.flush = flush;
        this.interval = interval;
    }

    public void start() {
        long ms = Math.max(1, interval.toMillis());
        executor.scheduleWithFixedDelay(this::flushOnce, ms, ms, TimeUnit.MILLISECONDS);
    }

    private void flushOnce() {
        try {
            flush.run();
        } catch (RuntimeException e) {
            log.error("status flush failed; the next one retries", e);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
