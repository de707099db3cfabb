package dev.muster.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.preempt.PreemptionStats;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Preemption's metrics as Prometheus reads them, from the scheduler's stats. */
class PreemptionMetricsTest {
    private static String scrape(PreemptionStats stats) throws IOException {
        CollectorRegistry registry = new CollectorRegistry();
        new Collector() {
            @Override
            public List<MetricFamilySamples> collect() {
                return ExtenderMetrics.preemptions(stats);
            }
        }.register(registry);
        StringWriter w = new StringWriter();
        TextFormat.write004(w, registry.metricFamilySamples());
        return w.toString();
    }

    @Test
    void decisionsVictimsRefusalsAndDecisionTimeInSeconds() throws IOException {
        // 4 decisions: 1 within 0.1 ms, 2 more within 1 ms, 1 over 100 ms; cumulative, +Inf last
        List<Long> buckets = List.of(1L, 1L, 1L, 3L, 3L, 3L, 3L, 3L, 3L, 3L, 4L);
        String text = scrape(new PreemptionStats(3, 1, 2, 1, 17, 2, 1, 5, buckets, 4, 250_000_000L));

        assertThat(text.lines()).contains(
                "muster_preemptions_total{kind=\"priority\",} 3.0",
                "muster_preemptions_total{kind=\"reclaim\",} 1.0",
                "muster_preemption_decisions_ended_unsent_total{reason=\"refused\",} 2.0",
                "muster_preemption_decisions_ended_unsent_total{reason=\"overtaken\",} 1.0",
                "muster_preemption_victims_evicted_total 17.0",
                "muster_preemption_evictions_refused_total{reason=\"budget\",} 2.0",
                "muster_preemption_evictions_refused_total{reason=\"error\",} 1.0",
                "muster_preemption_wasted_evictions_total 5.0",
                "# TYPE muster_preemption_decision_seconds histogram",
                "muster_preemption_decision_seconds_bucket{le=\"1.0E-4\",} 1.0",
                "muster_preemption_decision_seconds_bucket{le=\"0.001\",} 3.0",
                "muster_preemption_decision_seconds_bucket{le=\"0.1\",} 3.0",
                "muster_preemption_decision_seconds_bucket{le=\"+Inf\",} 4.0",
                "muster_preemption_decision_seconds_count 4.0",
                "muster_preemption_decision_seconds_sum 0.25");
    }

    @Test
    void beforeAnyPreemptionEverySeriesIsThereAtZero() throws IOException {
        String text = scrape(new PreemptionStats(0, 0, 0, 0, 0, 0, 0, 0, java.util.Collections.nCopies(PreemptionStats.BUCKETS_MILLIS.size() + 1, 0L), 0, 0));
        assertThat(text.lines()).contains("muster_preemptions_total{kind=\"reclaim\",} 0.0", "muster_preemption_wasted_evictions_total 0.0",
                "muster_preemption_decisions_ended_unsent_total{reason=\"refused\",} 0.0",
                "muster_preemption_decision_seconds_bucket{le=\"+Inf\",} 0.0",
                "muster_preemption_decision_seconds_count 0.0");
        assertThat(text.lines().filter(l -> l.startsWith("muster_preemption_decision_seconds_bucket"))).hasSize(PreemptionStats.BUCKETS_MILLIS.size() + 1);
    }
}
