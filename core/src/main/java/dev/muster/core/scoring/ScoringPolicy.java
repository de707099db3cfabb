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
        double sum = 0;
        int dims = 0;
        boolean scarceUnasked = false;
        for (int i = ResourceNames.MEMORY_INDEX + 1; i < allocatable.width(); i++) {
            if (i != ResourceNames.PODS_INDEX && i != ResourceNames.EPHEMERAL_STORAGE_INDEX && allocatable.get(i) > 0 && request.get(i) == 0) {
                scarceUnasked = true;
                break;
            }
        }
        int width = Math.max(request.width(), ResourceNames.MEMORY_INDEX + 1);
        for (int i = 0; i < width; i++) {
            if (i == ResourceNames.PODS_INDEX || i == ResourceNames.EPHEMERAL_STORAGE_INDEX) {
                continue;
            }
            long cap = allocatable.get(i);
            if (cap <= 0 || (i > ResourceNames.MEMORY_INDEX && request.get(i) == 0)) {
                continue;
            }
            double after = Math.min(1.0, Math.max(0.0, (double) (inUse.get(i) + request.get(i)) / cap));
            sum += after;
            dims++;
        }
        double utilization = dims == 0 ? 0 : sum / dims;
        double score = this == BINPACK ? utilization : 1.0 - utilization;
        return scarceUnasked ? score / 2 : score;
    }

    /** kube-scheduler's extender scale: an integer 0..10. Slot nodes of a gang get {@link #MAX_EXTENDER_SCORE}. */
    public static int toExtenderScore(double score) {
        return (int) Math.round(Math.max(0, Math.min(1, score)) * (MAX_EXTENDER_SCORE - 1));
    }

    public static final int MAX_EXTENDER_SCORE = 10;
}
