package dev.muster.demo.cluster;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.Resources;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the cluster's pods hold at one moment, counted from one consistent read of {@link EmbeddedCluster}: the demo's
 * report and its status check compare it with what Muster's controller wrote. Immutable.
 *
 * @param allocatable   sum of node allocatable
 * @param used          sum of requests of pods that hold resources (bound, not finished)
 * @param usedByQueue   the same per Queue of the pods' PodGroups (pods outside any PodGroup are not counted)
 * @param statusByQueue each Queue's {@code status.allocated} as last written (absent before the first write)
 * @param podsByPhase   pod counts: "pending" (unbound), "bound" (bound, not started), "running", "succeeded", "failed"
 * @param gangsRunning  PodGroups with at least one member holding resources
 * @param gangsWaiting  PodGroups with pending members and none holding resources
 */
public record ClusterUsage(Resources allocatable, Resources used, Map<String, Resources> usedByQueue,
                           Map<String, Resources> statusByQueue, Map<String, Integer> podsByPhase, int gangsRunning,
                           int gangsWaiting) {

    /** The count of pods in {@code phase} (one of the keys of {@link #podsByPhase}). */
    public int pods(String phase) {
        return podsByPhase.getOrDefault(phase, 0);
    }

    /** Counts the objects given; the caller holds whatever keeps them consistent while this runs. */
    static ClusterUsage of(Collection<Node> nodes, Map<String, Resources> nodeUsed, Collection<ClusterPod> pods,
                           Map<GangKey, PodGroupObject> podGroups, Collection<QueueObject> queues) {
        Resources allocatable = Resources.ZERO;
        Resources used = Resources.ZERO;
        for (Node n : nodes) {
            allocatable = allocatable.plus(n.allocatable());
            used = used.plus(nodeUsed.get(n.name()));
        }
        Map<String, Resources> byQueue = new LinkedHashMap<>();
        Map<String, Resources> status = new LinkedHashMap<>();
        queues.forEach(q -> {
            byQueue.put(q.name(), Resources.ZERO);
            if (q.status() != null) {
                status.put(q.name(), q.status().allocated());
            }
        });
        Map<String, Integer> byPhase = new LinkedHashMap<>();
        for (String k : List.of("pending", "bound", "running", "succeeded", "failed")) {
            byPhase.put(k, 0);
        }
        Map<GangKey, int[]> gangs = new HashMap<>(); // gang → {holding, pending}
        for (ClusterPod p : pods) {
            if (p.gang() != null && (p.holdsResources() || p.isPending())) {
                gangs.computeIfAbsent(p.gang(), g -> new int[2])[p.holdsResources() ? 0 : 1]++;
            }
            byPhase.merge(phaseKey(p), 1, Integer::sum);
            if (p.holdsResources() && p.gang() != null) {
                PodGroupObject pg = podGroups.get(p.gang());
                if (pg != null) {
                    byQueue.merge(pg.spec().queue(), p.request(), Resources::plus);
                }
            }
        }
        int running = 0;
        int waiting = 0;
        for (int[] g : gangs.values()) {
            if (g[0] > 0) {
                running++;
            } else if (g[1] > 0) {
                waiting++;
            }
        }
        return new ClusterUsage(allocatable, used, Map.copyOf(byQueue), Map.copyOf(status), Map.copyOf(byPhase), running,
                waiting);
    }

    private static String phaseKey(ClusterPod p) {
        return p.phase() == PodPhase.SUCCEEDED ? "succeeded" : p.phase() == PodPhase.FAILED ? "failed"
                : p.phase() == PodPhase.RUNNING ? "running" : p.isBound() ? "bound" : "pending";
    }
}
