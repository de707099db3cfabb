package dev.muster.bench;

import dev.muster.e2e.Kube;
import dev.muster.e2e.MusterProcess;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The soak's invariants, sampled (every 250 ms by its driver) from the cluster and the extender's metrics, and tallied
 * per phase:
 * <ul>
 *   <li>wasted evictions: {@code muster_preemption_wasted_evictions_total} (victims whose room the preemptor did not
 *       bind on in time);</li>
 *   <li>partial gangs: a gang that ran (at least minMember pods bound, not being deleted, not finished) and then had
 *       fewer but not none for longer than {@link #PARTIAL_AFTER_NANOS} — a whole gang's evictions are sent together,
 *       so its pods go within a sample or two; the longest such dip is reported either way;</li>
 *   <li>evictions ({@code muster_preemption_victims_evicted_total}) and decisions ({@code muster_preemptions_total}),
 *       whose count in the steady phase must be 0, and the decisions among them that ended before any eviction was sent
 *       ({@code muster_preemption_decisions_ended_unsent_total}).</li>
 * </ul>
 * Sampling runs on one thread; {@link #phase} is switched by the driver.
 */
final class SoakSampler {
    /** How long a running gang may be seen below its minMember before it counts as partial: its evictions in flight. */
    static final long PARTIAL_AFTER_NANOS = 2_000_000_000L;

    /** One phase's tallies. */
    static final class Phase {
        final String name;
        final long startNanos;
        long endNanos;
        int samples;
        long maxGapNanos;
        double decisions0;
        double unsent0;
        double evicted0;
        double wasted0;
        double decisions;
        double unsent; // decisions that ended before any eviction was sent
        double evicted;
        double wasted;
        int made0;
        int stopped0;
        int made;
        int stopped;
        final List<String> partial = new ArrayList<>();
        long longestDipNanos;
        String longestDip = ""; // which gang, and when its dip began

        Phase(String name, long startNanos) {
            this.name = name;
            this.startNanos = startNanos;
        }
    }

    private final Kube admin;
    private final MusterProcess extender;
    private final String ns;
    private final SoakWorkloads workloads;
    private final long t0;
    private final List<Phase> phases = new ArrayList<>();
    private final Set<String> running = new HashSet<>(); // gangs seen with minMember live
    private final Map<String, Long> below = new HashMap<>(); // running gang → when it was first seen below minMember
    private final Set<String> reported = new HashSet<>();
    private long lastSample;
    private double decisions;
    private double unsent;
    private double evicted;
    private double wasted;
    private String lastError = "";
    private int errors;

    SoakSampler(Kube admin, MusterProcess extender, String ns, SoakWorkloads workloads, long t0) {
        this.admin = admin;
        this.extender = extender;
        this.ns = ns;
        this.workloads = workloads;
        this.t0 = t0;
    }

    /** Ends the current phase (if any) and starts {@code name}, after a sample so the counters are current. */
    synchronized void phase(String name) {
        sample();
        long now = System.nanoTime();
        if (!phases.isEmpty()) {
            close(phases.getLast(), now);
        }
        Phase p = new Phase(name, now);
        p.decisions0 = decisions;
        p.unsent0 = unsent;
        p.evicted0 = evicted;
        p.wasted0 = wasted;
        p.made0 = workloads.made();
        p.stopped0 = workloads.stopped();
        phases.add(p);
    }

    /** Ends the last phase. */
    synchronized List<Phase> finish() {
        sample();
        close(phases.getLast(), System.nanoTime());
        return phases;
    }

    private void close(Phase p, long now) {
        p.endNanos = now;
        p.decisions = decisions - p.decisions0;
        p.unsent = unsent - p.unsent0;
        p.evicted = evicted - p.evicted0;
        p.wasted = wasted - p.wasted0;
        p.made = workloads.made() - p.made0;
        p.stopped = workloads.stopped() - p.stopped0;
    }

    /** One sample (errors reading the cluster are counted and reported, never thrown: the soak goes on). */
    synchronized void sample() {
        try {
            String metrics = extender.metrics();
            decisions = sum(metrics, "muster_preemptions_total");
            unsent = sum(metrics, "muster_preemption_decisions_ended_unsent_total");
            evicted = sum(metrics, "muster_preemption_victims_evicted_total");
            wasted = sum(metrics, "muster_preemption_wasted_evictions_total");
            judgeGangs(admin.pods(ns));
        } catch (RuntimeException e) {
            errors++;
            lastError = e.toString();
        }
        long now = System.nanoTime();
        if (!phases.isEmpty()) {
            Phase p = phases.getLast();
            p.samples++;
            if (lastSample != 0) {
                p.maxGapNanos = Math.max(p.maxGapNanos, now - lastSample);
            }
        }
        lastSample = now;
    }

    private void judgeGangs(List<V1Pod> pods) {
        Map<String, Integer> live = new HashMap<>();
        for (V1Pod p : pods) {
            String job = p.getMetadata().getLabels() == null ? null : p.getMetadata().getLabels().get("job");
            String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
            if (job != null && p.getSpec().getNodeName() != null && p.getMetadata().getDeletionTimestamp() == null
                    && !"Succeeded".equals(phase) && !"Failed".equals(phase)) {
                live.merge(job, 1, Integer::sum);
            }
        }
        long now = System.nanoTime();
        running.retainAll(workloads.gangs().keySet());
        below.keySet().retainAll(workloads.gangs().keySet());
        for (SoakWorkloads.Gang g : workloads.gangs().values()) {
            int n = live.getOrDefault(g.name(), 0);
            if (n >= g.minMember()) {
                running.add(g.name());
                dipEnded(g.name(), now);
            } else if (n == 0) {
                running.remove(g.name());
                dipEnded(g.name(), now);
            } else if (running.contains(g.name())) {
                long since = below.computeIfAbsent(g.name(), k -> now);
                if (now - since > PARTIAL_AFTER_NANOS && reported.add(g.name() + "@" + since) && !phases.isEmpty()) {
                    phases.getLast().partial.add(String.format(Locale.ROOT, "%s: %d of minMember %d at %.1f s", g.name(), n,
                            g.minMember(), (since - t0) / 1e9));
                }
            }
        }
    }

    private void dipEnded(String gang, long now) {
        Long since = below.remove(gang);
        if (since != null && !phases.isEmpty()) {
            Phase p = phases.getLast();
            if (now - since > p.longestDipNanos) {
                p.longestDipNanos = now - since;
                p.longestDip = String.format(Locale.ROOT, "%s from %.1f s", gang, (since - t0) / 1e9);
            }
        }
    }

    /** Sum of every series of a counter in Prometheus text ({@code name} with or without labels). */
    static double sum(String metrics, String name) {
        double total = 0;
        for (String line : metrics.split("\n")) {
            if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
                total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1).trim());
            }
        }
        return total;
    }

    int errors() {
        return errors;
    }

    String lastError() {
        return lastError;
    }
}
