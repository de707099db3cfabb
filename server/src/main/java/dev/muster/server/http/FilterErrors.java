package dev.muster.server.http;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Filters answered with an error, whatever the transport: kube-scheduler backs such a pod off (a second or more) instead
 * of placing it, so each one is counted by cause ({@code muster_filter_errors_total{cause}}) and logged at INFO — at most
 * one line per cause every {@link #LOG_EVERY_NANOS} ns, saying how many were not logged since. Also counts the filters that
 * waited for a pod the informers had not shown yet ({@code muster_filter_pod_waits_total{outcome}}: seen, or not_seen
 * when it never came within the wait). Thread-safe (prometheus collectors; the log's timestamps are CAS'd per cause).
 */
public final class FilterErrors {
    private static final System.Logger LOG = System.getLogger(FilterErrors.class.getName());
    static final long LOG_EVERY_NANOS = 10_000_000_000L;

    /** The pod's own content cannot be read (malformed in a way only that pod shows). */
    public static final String BAD_POD = "bad_pod";
    /** The extender failed (HTTP 500). */
    public static final String INTERNAL = "internal";

    private final Counter errors;
    private final Counter waits;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

    private static final class Window {
        final AtomicLong loggedAt = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong unlogged = new AtomicLong();
    }

    public FilterErrors(CollectorRegistry registry) {
        this(registry, System::nanoTime);
    }

    FilterErrors(CollectorRegistry registry, LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        errors = Counter.build("muster_filter_errors_total", "Filters answered with an error (kube-scheduler backs the pod off), by cause:"
                        + " not_seen, handover, other_scheduler, bound, terminating, refused, bad_pod, internal.")
                .labelNames("cause").register(registry);
        waits = Counter.build("muster_filter_pod_waits_total", "Filters that waited for a pod the informers had not shown yet, by outcome:"
                        + " seen (answered normally) or not_seen (never came within the wait: answered with an error).")
                .labelNames("outcome").register(registry);
    }

    /** A filter answered with error {@code message}, for {@code cause} (a {@code VerbRefusedException.Cause} label, {@link #BAD_POD}, {@link #INTERNAL}). */
    public void error(String cause, String message) {
        errors.labels(cause).inc();
        Window w = windows.computeIfAbsent(cause, c -> new Window());
        long now = nanoTime.getAsLong();
        long last = w.loggedAt.get();
        if (last != Long.MIN_VALUE && now - last < LOG_EVERY_NANOS || !w.loggedAt.compareAndSet(last, now)) {
            w.unlogged.incrementAndGet();
            return;
        }
        long skipped = w.unlogged.getAndSet(0);
        LOG.log(System.Logger.Level.INFO, "filter answered with an error (" + cause + "): " + message
                + (skipped == 0 ? "" : " (and " + skipped + " more filter errors of this cause not logged)"));
    }

    /** A filter waited for its pod to be shown: {@code seen} whether it came within the wait. */
    public void waited(boolean seen) {
        waits.labels(seen ? "seen" : "not_seen").inc();
    }

    /** Filters that waited for their pod, by outcome (seen, not_seen), since start (tests). */
    public double waits(String outcome) {
        return waits.labels(outcome).get();
    }

    /** Filters answered with an error of {@code cause} since start (tests). */
    public double count(String cause) {
        return errors.labels(cause).get();
    }
}
