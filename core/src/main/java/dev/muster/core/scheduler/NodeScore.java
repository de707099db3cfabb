package dev.muster.core.scheduler;

import dev.muster.core.scoring.ScoringPolicy;
import java.util.Objects;

/**
 * One entry of a prioritize answer: a node and its score in 0..{@link ScoringPolicy#MAX_EXTENDER_SCORE}
 * (kube-scheduler's {@code HostPriority}; the wire codec writes it as such and kube-scheduler scales it by the
 * extender's weight).
 */
public record NodeScore(String node, int score) {
    public NodeScore {
        Objects.requireNonNull(node, "node");
        if (score < 0 || score > ScoringPolicy.MAX_EXTENDER_SCORE) {
            throw new IllegalArgumentException("score " + score + " for " + node + " is outside 0.." + ScoringPolicy.MAX_EXTENDER_SCORE);
        }
    }
}
