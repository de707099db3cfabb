package dev.muster.server.wake;

import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import java.util.List;
import java.util.Locale;

/**
 * {@code muster_pods_woken_total{outcome}} and {@code muster_pod_wakes_pending}: how the {@link KubePodWaker}'s wakes
 * ended, and how many wait to be sent. Read at scrape time; thread-safe.
 */
public final class WakeCollector extends Collector {
    private final KubePodWaker waker;

    public WakeCollector(KubePodWaker waker) {
        this.waker = waker;
    }

    @Override
    public List<MetricFamilySamples> collect() {
        CounterMetricFamily woken = new CounterMetricFamily("muster_pods_woken",
                "Pods Muster asked kube-scheduler to try again after its books changed (a Queue or PodGroup edited, reserved room"
                        + " given back), by outcome: sent, gone (pod deleted or recreated), dropped (not leading, or too many waiting),"
                        + " failed.", List.of("outcome"));
        for (KubePodWaker.Outcome o : KubePodWaker.Outcome.values()) {
            woken.addMetric(List.of(o.name().toLowerCase(Locale.ROOT)), waker.count(o));
        }
        GaugeMetricFamily pending = new GaugeMetricFamily("muster_pod_wakes_pending", "Pod wakes waiting to be sent (paced).", waker.pending());
        return List.of(woken, pending);
    }
}
