package dev.muster.server.http;

import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerStats;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.PreemptionStats;
import io.prometheus.client.Collector;
import io.prometheus.client.Collector.MetricFamilySamples;
import io.prometheus.client.Collector.Type;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import dev.muster.core.gang.GateLifts;
import io.prometheus.client.Histogram;
import java.util.ArrayList;
import java.util.List;

/**
 * The extender's Prometheus metrics: per-verb decision latency, decisions by outcome, and — read from a
 * consistent {@link SchedulerStats} at scrape time — gangs by state, waiting binds, reservations,
 * overcommitted nodes, ledger size, the allocation stream's sequence and preemption ({@link #preemptions}). Thread-safe (prometheus
 * simpleclient collectors are).
 */
public final class ExtenderMetrics {
    private final Histogram latency;
    private final Counter decisions;
    private final FilterErrors filterErrors;

    public ExtenderMetrics(CollectorRegistry registry, GangScheduler scheduler, AllocationJournal journal) {
        latency = Histogram.build("muster_extender_request_seconds", "Time to answer an extender verb, by verb.")
                .labelNames("verb", "transport")
                .buckets(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5, 15, 30, 60, 120)
                .register(registry);
        decisions = Counter.build("muster_extender_decisions_total", "Extender answers by verb and outcome.")
                .labelNames("verb", "outcome")
                .register(registry);
        filterErrors = new FilterErrors(registry);
        new StatsCollector(scheduler, journal).register(registry);
    }

    /** Filters answered with an error, by cause, on either transport. */
    public FilterErrors filterErrors() {
        return filterErrors;
    }

    /** Starts timing one request; call {@link Timer#done} with the outcome. */
    public Timer start(String verb, String transport) {
        return new Timer(verb, transport, System.nanoTime());
    }

    /** One request being timed. */
    public final class Timer {
        private final String verb;
        private final String transport;
        private final long startNanos;

        private Timer(String verb, String transport, long startNanos) {
            this.verb = verb;
            this.transport = transport;
            this.startNanos = startNanos;
        }

        public void done(String outcome) {
            latency.labels(verb, transport).observe((System.nanoTime() - startNanos) / 1e9);
            decisions.labels(verb, outcome).inc();
        }
    }

    private static final class StatsCollector extends Collector {
        private final GangScheduler scheduler;
        private final AllocationJournal journal;

        StatsCollector(GangScheduler scheduler, AllocationJournal journal) {
            this.scheduler = scheduler;
            this.journal = journal;
        }

        @Override
        public List<MetricFamilySamples> collect() {
            SchedulerStats s = scheduler.stats();
            List<MetricFamilySamples> out = new ArrayList<>();
            GaugeMetricFamily gangs = new GaugeMetricFamily("muster_gangs", "Gangs (PodGroups known to the extender) by state;"
                    + " idle: waiting for nothing (no member pending).", List.of("state"));
            for (GangState state : GangState.values()) {
                if (state != GangState.DELETED) {
                    gangs.addMetric(List.of(state.name().toLowerCase()), s.gangsByState().getOrDefault(state, 0));
                }
            }
            gangs.addMetric(List.of("idle"), s.idleGangs());
            out.add(gangs);
            GaugeMetricFamily refused = new GaugeMetricFamily("muster_gangs_refused",
                    "Gangs whose state carries a refusal, by cause (resources, members_missing, queue_full, ...).", List.of("cause"));
            for (Refusal.Cause cause : Refusal.Cause.values()) {
                if (cause != Refusal.Cause.NONE) {
                    refused.addMetric(List.of(cause.name().toLowerCase()), s.gangsByCause().getOrDefault(cause, 0));
                }
            }
            out.add(refused);
            GaugeMetricFamily gated = new GaugeMetricFamily("muster_gangs_gated", "Gangs kept behind a scheduling gate at the last"
                    + " sweep of the queue-admission gate, by cause: queue (their queue does not admit them yet), hold (admitted, kept"
                    + " by a hold), foreign-gate (a gate Muster did not add; never lifted by Muster).", List.of("cause"));
            for (String cause : List.of(GateLifts.QUEUE, GateLifts.HOLD, GateLifts.FOREIGN_GATE)) {
                gated.addMetric(List.of(cause), s.gangsGated().getOrDefault(cause, 0));
            }
            out.add(gated);
            GaugeMetricFamily fair = new GaugeMetricFamily("muster_queue_fair_share",
                    "Each queue's fair share of the cluster by weight (capped by capability and demand; guarantee and deserved honoured).",
                    List.of("queue", "resource"));
            GaugeMetricFamily held = new GaugeMetricFamily("muster_queue_held", "What each queue holds: bound pods and reservations.",
                    List.of("queue", "resource"));
            GaugeMetricFamily borrowed = new GaugeMetricFamily("muster_queue_borrowed",
                    "What each queue holds beyond its fair share (given back as its pods finish, or taken back by reclaim).", List.of("queue", "resource"));
            GaugeMetricFamily ratio = new GaugeMetricFamily("muster_queue_share_ratio",
                    "Held divided by fair share on the queue's dominant resource: below 1 the queue is owed room and goes first.", List.of("queue"));
            s.queueShares().forEach((queue, share) -> {
                share.fairShare().asMap().forEach((r, v) -> fair.addMetric(List.of(queue, r), v));
                share.held().asMap().forEach((r, v) -> held.addMetric(List.of(queue, r), v));
                share.borrowed().asMap().forEach((r, v) -> borrowed.addMetric(List.of(queue, r), v));
                ratio.addMetric(List.of(queue), Double.isInfinite(share.ratio()) ? Double.MAX_VALUE : share.ratio());
            });
            out.add(fair);
            out.add(held);
            out.add(borrowed);
            out.add(ratio);
            GaugeMetricFamily next = new GaugeMetricFamily("muster_gang_next_in_line",
                    "1 for the gang room is set aside for (the next in line that does not fit yet).", List.of("gang"));
            if (!s.nextInLine().isEmpty()) {
                next.addMetric(List.of(s.nextInLine()), 1);
            }
            out.add(next);
            out.add(new GaugeMetricFamily("muster_waiting_binds", "Binds held at a gang barrier.", s.waitingBinds()));
            out.add(new GaugeMetricFamily("muster_bindings_in_flight", "Binding POSTs sent and not answered yet.", s.bindingsInFlight()));
            out.add(new GaugeMetricFamily("muster_held_binds", "Binds of gang members whose gang is not admitted yet, held while muster retries.",
                    s.heldBinds()));
            out.add(new GaugeMetricFamily("muster_filter_pods_awaited", "Filters waiting now for the informers to show their pod.",
                    scheduler.podsAwaited()));
            out.add(new GaugeMetricFamily("muster_reservations", "Gangs holding a reservation.", s.reservations()));
            out.add(new GaugeMetricFamily("muster_overcommitted_nodes", "Nodes whose pods use more than allocatable (no new placements).", s.overcommittedNodes()));
            out.add(new GaugeMetricFamily("muster_ledger_nodes", "Nodes in the ledger.", s.nodes()));
            out.add(new GaugeMetricFamily("muster_ledger_pods", "Pods holding resources in the ledger.", s.podsHoldingResources()));
            out.add(new GaugeMetricFamily("muster_synced", "1 once the first full sync finished.", s.synced() ? 1 : 0));
            GangScheduler.LockWaits waits = scheduler.lockWaits();
            out.add(new CounterMetricFamily("muster_scheduler_lock_contended",
                    "Times a verb, the informers or the ticker found the scheduler's lock held and waited for it.", waits.contended()));
            out.add(new CounterMetricFamily("muster_scheduler_lock_wait_seconds",
                    "Time spent waiting for the scheduler's lock, summed over all waiters.", waits.waitNanos() / 1e9));
            out.add(new GaugeMetricFamily("muster_allocation_stream_sequence", "Sequence of the newest allocation event.", journal.lastSequence()));
            out.addAll(preemptions(scheduler.preemptionStats()));
            return out;
        }
    }

    /**
     * Preemption since start: decisions by kind, decisions that ended before any eviction was sent, victims evicted, evictions (and their dry runs) refused (by a
     * PodDisruptionBudget, or failed otherwise), victims evicted for nothing, and the decision time under the scheduler's lock as a histogram in seconds.
     */
    static List<MetricFamilySamples> preemptions(PreemptionStats p) {
        List<MetricFamilySamples> out = new ArrayList<>(4);
        CounterMetricFamily decisions = new CounterMetricFamily("muster_preemptions",
                "Preemption decisions by kind: priority (lower priority evicted) or reclaim (a queue below its fair share took room back).",
                List.of("kind"));
        for (PreemptionKind kind : PreemptionKind.values()) {
            decisions.addMetric(List.of(kind.label()), p.decisionsOf(kind));
        }
        out.add(decisions);
        CounterMetricFamily unsent = new CounterMetricFamily("muster_preemption_decisions_ended_unsent",
                "Preemption decisions that ended before any of their evictions was sent, by why: refused (a victim's dry run, or the"
                        + " decision's record, failed) or overtaken (the preemptor ran on other room, went away, or its reservation ended first).",
                List.of("reason"));
        unsent.addMetric(List.of("refused"), p.endedRefused());
        unsent.addMetric(List.of("overtaken"), p.endedOvertaken());
        out.add(unsent);
        out.add(new CounterMetricFamily("muster_preemption_victims_evicted", "Victim pods the API server accepted an eviction for.",
                p.victimsEvicted()));
        CounterMetricFamily refused = new CounterMetricFamily("muster_preemption_evictions_refused",
                "Evictions of victims that did not happen: refused by a PodDisruptionBudget (budget) or failed otherwise (error).",
                List.of("reason"));
        refused.addMetric(List.of("budget"), p.evictionsRefusedByBudget());
        refused.addMetric(List.of("error"), p.evictionsFailed());
        out.add(refused);
        out.add(new CounterMetricFamily("muster_preemption_wasted_evictions",
                "Victims evicted whose room their preemptor did not run on before its reservation ended (or that went away). Goal: 0.",
                p.wastedEvictions()));
        String name = "muster_preemption_decision_seconds";
        List<MetricFamilySamples.Sample> samples = new ArrayList<>(PreemptionStats.BUCKETS_MILLIS.size() + 3);
        for (int i = 0; i <= PreemptionStats.BUCKETS_MILLIS.size(); i++) {
            String le = i < PreemptionStats.BUCKETS_MILLIS.size() ? Collector.doubleToGoString(PreemptionStats.BUCKETS_MILLIS.get(i) / 1000) : "+Inf";
            long count = i < p.decisionBuckets().size() ? p.decisionBuckets().get(i) : p.decisions();
            samples.add(new MetricFamilySamples.Sample(name + "_bucket", List.of("le"), List.of(le), count));
        }
        samples.add(new MetricFamilySamples.Sample(name + "_count", List.of(), List.of(), p.decisions()));
        samples.add(new MetricFamilySamples.Sample(name + "_sum", List.of(), List.of(), p.decisionNanos() / 1e9));
        out.add(new MetricFamilySamples(name, Type.HISTOGRAM, "Time to decide a preemption (choose victims and plan the preemptor), under the scheduler's lock.",
                samples));
        return out;
    }
}
