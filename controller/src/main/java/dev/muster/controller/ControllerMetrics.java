package dev.muster.controller;

import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.controller.writer.WriterMetrics;
import dev.muster.core.status.StatusFolding;
import dev.muster.core.status.StatusKey;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;
import java.util.List;
import java.util.Locale;

/**
 * The controller's Prometheus metrics: status writes, skips, failures (each one retried) and write lag as the
 * writer reports them; pending writes, objects, fold state and stream lag read from the {@link Controller} at
 * scrape time. Thread-safe (Prometheus collectors are).
 */
public final class ControllerMetrics implements WriterMetrics {
    private final Counter writes;
    private final Counter skipped;
    private final Counter failures;
    private final Counter throttled;
    private final Histogram lag;
    private final CollectorRegistry registry;

    public ControllerMetrics(CollectorRegistry registry) {
        this.registry = registry;
        writes = Counter.build("muster_controller_status_writes_total", "Status patches that succeeded, by object kind.")
                .labelNames("kind").register(registry);
        skipped = Counter.build("muster_controller_status_skipped_total",
                "Dirty objects whose desired status already equalled what the API holds (no request).").labelNames("kind").register(registry);
        failures = Counter.build("muster_controller_status_write_failures_total",
                "Status patches that failed; each is retried with per-object backoff.").labelNames("kind", "reason").register(registry);
        throttled = Counter.build("muster_controller_status_flushes_throttled_total",
                "Flushes that stopped with work left because the --api-qps budget was spent.").register(registry);
        lag = Histogram.build("muster_controller_status_write_lag_seconds",
                        "From the first change of an object's status to its successful write.")
                .buckets(0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600).register(registry);
    }

    private static String kind(StatusKey key) {
        return key instanceof StatusKey.Queue ? "queue" : "podgroup";
    }

    @Override
    public void written(StatusKey key, long lagNanos) {
        writes.labels(kind(key)).inc();
        lag.observe(lagNanos / 1e9);
    }

    @Override
    public void skipped(StatusKey key) {
        skipped.labels(kind(key)).inc();
    }

    @Override
    public void failed(StatusKey key, Kind kind) {
        failures.labels(kind(key), kind.name().toLowerCase(Locale.ROOT)).inc();
    }

    @Override
    public void throttled() {
        throttled.inc();
    }

    /** Registers the gauges read from {@code controller} at scrape time. */
    public void bind(Controller controller) {
        new Collector() {
            @Override
            public List<MetricFamilySamples> collect() {
                StatusFolding.Stats s = controller.foldStats();
                return List.of(
                        gauge("muster_controller_status_pending", "Objects waiting for a status write (ready or backing off); at most the number of objects.",
                                controller.pendingWrites()),
                        gauge("muster_controller_status_backing_off", "Objects whose last status write failed and that wait for their retry.",
                                controller.backingOff()),
                        gauge("muster_controller_status_oldest_pending_seconds", "How long the oldest unwritten status change has waited.",
                                controller.oldestPendingNanos() / 1e9),
                        gauge("muster_controller_objects", "Observed Queues and PodGroups.", controller.objects()),
                        gauge("muster_controller_member_pods", "Member pods the fold tracks.", s.memberPods()),
                        gauge("muster_controller_stream_sequence", "Sequence of the last allocation event applied.", s.appliedSequence()),
                        gauge("muster_controller_stream_lag_seconds", "Age of the newest allocation event when it was applied.",
                                controller.allocations().lastLagMillis() / 1000.0),
                        gauge("muster_controller_writing", "1 when this replica leads and is warm (writes status).", controller.writing() ? 1 : 0),
                        gauge("muster_controller_queue_watchers", "Open Queues.Watch streams.", controller.watchSubscribers()));
            }
        }.register(registry);
    }

    private static Collector.MetricFamilySamples gauge(String name, String help, double value) {
        return new GaugeMetricFamily(name, help, value);
    }
}
