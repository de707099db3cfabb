package dev.muster.server.gate;

import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import java.util.List;
import java.util.Locale;

/**
 * {@code muster_gate_lifts_total{outcome}} and {@code muster_gate_lifts_pending}: how the {@link KubeGateLifter}'s lifts
 * ended, and how many wait to be sent. Read at scrape time; thread-safe.
 */
public final class GateCollector extends Collector {
    private final KubeGateLifter lifter;

    public GateCollector(KubeGateLifter lifter) {
        this.lifter = lifter;
    }

    @Override
    public List<MetricFamilySamples> collect() {
        CounterMetricFamily lifts = new CounterMetricFamily("muster_gate_lifts",
                "Pods whose queue-admission gate Muster lifted, by outcome: lifted, gone (pod deleted, recreated, or the gate"
                        + " gone already), dropped (not leading), failed.", List.of("outcome"));
        for (KubeGateLifter.Outcome o : KubeGateLifter.Outcome.values()) {
            lifts.addMetric(List.of(o.name().toLowerCase(Locale.ROOT)), lifter.count(o));
        }
        GaugeMetricFamily pending = new GaugeMetricFamily("muster_gate_lifts_pending", "Gate lifts waiting to be sent (paced).",
                lifter.pending());
        return List.of(lifts, pending);
    }
}
