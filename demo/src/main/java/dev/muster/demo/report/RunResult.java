package dev.muster.demo.report;

import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.demo.cluster.ClusterEvictor;
import dev.muster.demo.cluster.ClusterUsage;
import dev.muster.demo.cluster.EmbeddedCluster;
import dev.muster.demo.cluster.QueueObject;
import dev.muster.demo.driver.DriverStats;
import dev.muster.demo.scenario.Scenario;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a demo run produced, and the verdicts drawn from it: the statistics both reports show and the
 * invariants whose failure makes the demo exit non-zero. Immutable (the lists are copies).
 *
 * @param finished      the run ended by itself (everything done, or what is left can never be placed)
 * @param endReason     how the run ended, for people
 * @param samples       the cluster over simulated time
 * @param gangs         each gang's outcome
 * @param singlePodWaits creation to bind of each bound pod outside any gang (simulated nanoseconds)
 * @param checkpoints   controller-written Queue status against the truth (half-way through the arrivals, and at the end)
 * @param ledgerProblems the extender's own ledger check at the end (empty when its books balance)
 * @param watchFailures handler calls that threw, over all watches
 * @param evictions     every pod the embedded cluster evicted for a preemption, in order
 * @param timerLateness per simulated-time task (arrivals, starts, finishes, samples), how late it ran (simulated nanoseconds)
 */
public record RunResult(Scenario scenario, int nodeCount, Resources allocatable, int podsPlanned, Duration realTime, long simEnd,
                        boolean finished, String endReason, List<Sample> samples, List<GangOutcome> gangs, long[] singlePodWaits,
                        Map<String, Integer> podsAtEnd, StreamRecorder.Summary stream, DriverStats.Snapshot driver,
                        EmbeddedCluster.Counters cluster, List<QueueObject> queues, List<Checkpoint> checkpoints,
                        List<String> ledgerProblems, long watchFailures, List<ClusterEvictor.Eviction> evictions, long[] timerLateness) {
    public RunResult {
        evictions = List.copyOf(evictions);
        samples = List.copyOf(samples);
        gangs = List.copyOf(gangs);
        queues = List.copyOf(queues);
        checkpoints = List.copyOf(checkpoints);
        ledgerProblems = List.copyOf(ledgerProblems);
    }

    // ------------------------------------------------------------------------------------------- gangs

    public long gangs(GangOutcome.Kind kind) {
        return gangs.stream().filter(g -> g.kind() == kind).count();
    }

    /** Per gang API, how many gangs there were and how many ran (started whole): {api → [gangs, ran]}, in API order. */
    public Map<dev.muster.core.model.GangApi, long[]> gangsByApi() {
        Map<dev.muster.core.model.GangApi, long[]> out = new java.util.EnumMap<>(dev.muster.core.model.GangApi.class);
        for (GangOutcome g : gangs) {
            long[] n = out.computeIfAbsent(g.api(), a -> new long[2]);
            n[0]++;
            if (g.kind() == GangOutcome.Kind.WHOLE) {
                n[1]++;
            }
        }
        return out;
    }

    /** Gangs that started whole but left members beyond minMember unbound. */
    public long incompleteGangs() {
        return gangs.stream().filter(GangOutcome::incomplete).count();
    }

    /** Creation to start of the gangs that started whole (simulated nanoseconds). */
    public long[] gangWaits() {
        return gangs.stream().filter(g -> g.kind() == GangOutcome.Kind.WHOLE).mapToLong(GangOutcome::waitNanos).toArray();
    }

    /** The gangs that waited longest to start, longest first. */
    public List<GangOutcome> longestWaits(int n) {
        return gangs.stream().filter(g -> g.kind() == GangOutcome.Kind.WHOLE)
                .sorted(java.util.Comparator.comparingLong(GangOutcome::waitNanos).reversed()).limit(n).toList();
    }

    /** The widest gap between a gang's first bind and its minMember-th, in real nanoseconds. */
    public long maxBindSpreadRealNanos() {
        return (long) (gangs.stream().mapToLong(GangOutcome::bindSpread).max().orElse(0) / scenario.settings().speed());
    }

    // ------------------------------------------------------------------------------------------- utilisation

    /** Samples while work was present (something pending or holding resources). */
    public List<Sample> busySamples() {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            ClusterUsage u = s.usage();
            if (u.pods("pending") + u.pods("bound") + u.pods("running") > 0) {
                out.add(s);
            }
        }
        return out;
    }

    public double meanUtilisation(String resource) {
        List<Sample> busy = busySamples();
        return busy.stream().mapToDouble(s -> Fmt.fraction(s.usage().used(), s.usage().allocatable(), resource)).average().orElse(0);
    }

    public double peakUtilisation(String resource) {
        return samples.stream().mapToDouble(s -> Fmt.fraction(s.usage().used(), s.usage().allocatable(), resource)).max().orElse(0);
    }

    // ------------------------------------------------------------------------------------------- queues

    public QueueSpec queueSpec(String name) {
        for (QueueObject q : queues) {
            if (q.name().equals(name)) {
                return q.spec();
            }
        }
        return null;
    }

    /** The highest amount of each resource the queue's bound pods held at once (over the samples). */
    public Resources peakHeld(String queue) {
        Resources peak = Resources.ZERO;
        for (Sample s : samples) {
            peak = peak.max(s.usage().usedByQueue().getOrDefault(queue, Resources.ZERO));
        }
        return peak;
    }

    /** The resources a queue's row shows: those its capability names (but pods), else cpu. */
    public List<String> shownResources(String queue) {
        QueueSpec spec = queueSpec(queue);
        List<String> out = new ArrayList<>();
        if (spec != null && spec.capability() != null) {
            for (String r : spec.capability().asMap().keySet()) {
                if (!r.equals(ResourceNames.PODS)) {
                    out.add(r);
                }
            }
        }
        return out.isEmpty() ? List.of(ResourceNames.CPU) : out;
    }

    /**
     * Every sample where a queue held more than its capability — by the truth (bound pods) or by the status the
     * controller wrote — as "time queue: what".
     */
    public List<String> capabilityExceeded() {
        List<String> out = new ArrayList<>();
        for (Sample s : samples) {
            for (QueueObject q : queues) {
                Resources cap = q.spec().capability();
                if (cap == null) {
                    continue;
                }
                check(out, s, q.name(), "bound pods", s.usage().usedByQueue().get(q.name()), cap);
                check(out, s, q.name(), "status.allocated", s.usage().statusByQueue().get(q.name()), cap);
            }
        }
        return out;
    }

    private static void check(List<String> out, Sample s, String queue, String what, Resources held, Resources cap) {
        if (held == null) {
            return;
        }
        for (Map.Entry<String, Long> c : cap.asMap().entrySet()) {
            if (!c.getKey().equals(ResourceNames.PODS) && held.get(c.getKey()) > c.getValue()) {
                out.add(Fmt.clock(s.at()) + " queue " + queue + ": " + what + " " + Fmt.amount(c.getKey(), held.get(c.getKey())) + " "
                        + c.getKey() + " > capability " + Fmt.amount(c.getKey(), c.getValue()));
            }
        }
    }

    public Map<String, Long> statusWritesByQueue() {
        Map<String, Long> out = new LinkedHashMap<>();
        queues.forEach(q -> out.put(q.name(), q.statusWrites()));
        return out;
    }

    // ------------------------------------------------------------------------------------------- verdict

    /** The invariants that failed; empty when the run is a success. */
    public List<String> violations() {
        List<String> out = new ArrayList<>();
        if (!finished) {
            out.add("the run did not finish: " + endReason);
        }
        long partial = gangs(GangOutcome.Kind.PARTIAL);
        if (partial > 0) {
            List<String> names = gangs.stream().filter(g -> g.kind() == GangOutcome.Kind.PARTIAL).limit(5)
                    .map(g -> g.key() + " (" + g.everBound() + "/" + g.minMember() + " bound)").toList();
            out.add(partial + " gang(s) started partially: " + String.join(", ", names));
        }
        List<String> exceeded = capabilityExceeded();
        if (!exceeded.isEmpty()) {
            out.add(exceeded.size() + " sample(s) with a queue over its capability, first: " + exceeded.getFirst());
        }
        for (Checkpoint c : checkpoints) {
            if (!c.matched()) {
                out.add("controller-written Queue status did not match the bound pods at " + c.label() + " (" + Fmt.clock(c.at()) + ")");
            }
        }
        if (cluster.overcommittingBinds() > 0) {
            out.add(cluster.overcommittingBinds() + " bind(s) put more on a node than it can hold");
        }
        if (!cluster.admissionRejections().isEmpty()) {
            out.add(cluster.admissionRejections().size() + " pod(s) refused by the kubelet, first: " + cluster.admissionRejections().getFirst());
        }
        if (!ledgerProblems.isEmpty()) {
            out.add("the extender's ledger does not balance: " + ledgerProblems.getFirst());
        }
        if (watchFailures > 0) {
            out.add(watchFailures + " watch handler call(s) failed (see the log)");
        }
        return out;
    }
}
