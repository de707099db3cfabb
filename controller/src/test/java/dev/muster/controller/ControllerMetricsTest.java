package dev.muster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.ops.OpsEndpoints;
import dev.muster.core.time.Backoff;
import dev.muster.controller.writer.FakeStatusPatcher;
import dev.muster.controller.writer.FakeTicker;
import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.status.ManualClock;
import dev.muster.core.status.StatusKey;
import dev.muster.core.model.GangKey;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ControllerMetricsTest {

    @Test
    void theScrapeShowsWritesFailuresPendingAndLag() {
        CollectorRegistry registry = new CollectorRegistry();
        ControllerMetrics metrics = new ControllerMetrics(registry);
        FakeTicker ticker = new FakeTicker();
        FakeStatusPatcher api = new FakeStatusPatcher();
        Controller c = new Controller(new Controller.Settings(100, 100, Controller.Settings.WRITE_BACKOFF), api, ManualClock.at("2025-01-01T00:00:00Z"),
                ticker, Runnable::run, metrics);
        metrics.bind(c);
        c.cluster().queue(QueueSpec.open("q", null), null);
        c.cluster().podGroup(PodGroupSpec.of(new GangKey("ns", "pg"), 1, "q"), null);
        c.cluster().synced();
        c.allocations().markSynced();
        c.setLeading(true);
        api.failNext(StatusKey.podGroup(new GangKey("ns", "pg")), Kind.THROTTLED);
        ticker.advance(Duration.ofSeconds(2));
        c.flush();

        String page = new OpsEndpoints(registry, () -> null).scrape();
        assertThat(page).contains(
                "muster_controller_status_writes_total{kind=\"queue\",} 1.0",
                "muster_controller_status_write_failures_total{kind=\"podgroup\",reason=\"throttled\",} 1.0",
                "muster_controller_status_pending 1.0",
                "muster_controller_status_backing_off 1.0",
                "muster_controller_objects 2.0",
                "muster_controller_writing 1.0",
                "muster_controller_status_write_lag_seconds_count 1.0",
                "muster_controller_status_oldest_pending_seconds 2.0");
    }
}
