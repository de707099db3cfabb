package dev.muster.server.gate;

import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import java.util.List;
import java.util.Locale;

/**
 * {@code muster_gate_lifts_total{outcome}} and {@code muster_gate_lifts_pending}: how the {@link KubeGateLifter}'s lifts
 * ended, and how many wait to be sent; {@code muster_gate_events_total{outcome}}: how the {@link KubeGateEvents}' Events
 * to gated pods ended. Read at scrape time; thread-safe.
 */
public final class GateCollector extends Collector {
    private final KubeGateLifter lifter;
    private final KubeGateEvents events;

    public GateCollector(KubeGateLifter lifter, KubeGateEvents events) {
        this.lifter = lifter;
        this.events = events;
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
        CounterMetricFamily told = new CounterMetricFamily("muster_gate_events",
                "Events telling gated pods what their gang waits for, or that their gate was lifted, by outcome: sent, dropped"
                        + " (not leading, or too many waiting), failed.", List.of("outcome"));
        for (KubeGateEvents.Outcome o : KubeGateEvents.Outcome.values()) {
            told.addMetric(List.of(o.name().toLowerCase(Locale.ROOT)), events.count(o));
        }
        return List.of(lifts, pending, told);
    }
}
