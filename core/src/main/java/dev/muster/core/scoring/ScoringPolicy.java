package dev.muster.core.scoring;

import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;

/**
 * How nodes are ranked for placement: {@code BINPACK} (default) prefers nodes that are already fuller,
 * so whole nodes stay free for big gangs; {@code SPREAD} prefers emptier nodes. Scores are computed on
 * cpu and memory after placing the pod; extended resources count when the pod asks for them. A node with an
 * extended resource (a GPU) that the pod does not ask for scores half as much, so pods that need no GPU leave GPU
 * nodes to pods that do (Volcano's scarce resource avoidance): they land there only when other nodes score lower still.
 */
public enum ScoringPolicy {
    BINPACK, SPREAD;

    public static ScoringPolicy parse(String s) {
        for (ScoringPolicy p : values()) {
            if (p.name().equalsIgnoreCase(s == null ? "" : s.trim())) {
                return p;
            }
        }
        throw new IllegalArgumentException("scoring policy \"" + s + "\" is not one of binpack, spread");
    }

    /**
     * A score in [0, 1] for placing {@code request} on a node with {@code allocatable} of which
     * {@code inUse} (used + reserved) is taken; higher is better.
     */
    public double score(Resources allocatable, Resources inUse, Resources request) {
        if (request.width() <= ResourceNames.STANDARD_COUNT) {
            return score(allocatable.cpuMillis(), inUse.cpuMillis(), allocatable.memoryBytes(), inUse.memoryBytes(), offersExtended(allocatable), request);
        }
        double sum = 0;
        int dims = 0;
        boolean scarceUnasked = false;
        for (int i = ResourceNames.STANDARD_COUNT; i < allocatable.width(); i++) {
            if (allocatable.get(i) > 0 && request.get(i) == 0) {
                scarceUnasked = true;
                break;
            }
        }
        for (int i = 0; i < request.width(); i++) {
            if (i == ResourceNames.PODS_INDEX || i == ResourceNames.EPHEMERAL_STORAGE_INDEX) {
                continue;
            }
            long cap = allocatable.get(i);
            if (cap <= 0 || (i > ResourceNames.MEMORY_INDEX && request.get(i) == 0)) {
                continue;
            }
            sum += utilizationAfter(inUse.get(i), request.get(i), cap);
            dims++;
        }
        return finish(sum, dims, scarceUnasked);
    }

    /**
     * {@link #score(Resources, Resources, Resources)} for a request of standard resources only (cpu, memory,
     * ephemeral-storage, pods: {@code request.width() <= }{@link ResourceNames#STANDARD_COUNT}), from the node's cpu and
     * memory numbers, as a node entry keeps them; {@code offersExtended}: the node has an extended resource (a GPU).
     */
    public double score(long cpuCap, long cpuInUse, long memoryCap, long memoryInUse, boolean offersExtended, Resources request) {
        double sum = 0;
        int dims = 0;
        if (cpuCap > 0) {
            sum += utilizationAfter(cpuInUse, request.cpuMillis(), cpuCap);
            dims++;
        }
        if (memoryCap > 0) {
            sum += utilizationAfter(memoryInUse, request.memoryBytes(), memoryCap);
            dims++;
        }
        return finish(sum, dims, offersExtended); // the request asks for no extended resource, so any offered is unasked
    }

    /** Whether {@code allocatable} has an extended resource (one beyond the standard four). */
    public static boolean offersExtended(Resources allocatable) {
        for (int i = ResourceNames.STANDARD_COUNT; i < allocatable.width(); i++) {
            if (allocatable.get(i) > 0) {
                return true;
            }
        }
        return false;
    }

    private static double utilizationAfter(long inUse, long request, long cap) {
        return Math.min(1.0, Math.max(0.0, (double) (inUse + request) / cap));
    }

    private double finish(double sum, int dims, boolean scarceUnasked) {
        double utilization = dims == 0 ? 0 : sum / dims;
        double score = this == BINPACK ? utilization : 1.0 - utilization;
        return scarceUnasked ? score / 2 : score;
    }

    /** kube-scheduler's extender scale: an integer 0..10. Slot nodes of a gang get {@link #MAX_EXTENDER_SCORE}. */
    public static int toExtenderScore(double score) {
        return (int) Math.round(Math.max(0, Math.min(1, score)) * (MAX_EXTENDER_SCORE - 1));
    }

    public static final int MAX_EXTENDER_SCORE = 10;

    /** Where kube-scheduler would go on extender scores alone: the index of the first highest score, -1 for none. */
    public static int highest(int[] scores) {
        int best = -1;
        for (int i = 0; i < scores.length; i++) {
            if (best < 0 || scores[i] > scores[best]) {
                best = i;
            }
        }
        return best;
    }
}
