package dev.muster.core.preempt;

import java.util.List;

/**
 * What preemption has done since start (counters only grow): decisions by kind, decisions that ended before any of
 * their evictions was sent (a victim's dry run or the decision's record failed: {@code endedRefused}; the preemptor ran
 * on other room, went, or its reservation ended first: {@code endedOvertaken}), victims evicted, evictions (and their
 * dry runs) refused by a PodDisruptionBudget or failed, victims evicted whose room their preemptor did not run on
 * before its reservation ended ({@code wastedEvictions}; its goal is 0), and how long decisions took under the core's lock ({@link #BUCKETS_MILLIS} upper
 * bounds, cumulative counts as Prometheus histograms count them; the last bucket is +Inf).
 */
public record PreemptionStats(long priorityDecisions, long reclaimDecisions, long endedRefused, long endedOvertaken, long victimsEvicted, long evictionsRefusedByBudget,
                              long evictionsFailed, long wastedEvictions, List<Long> decisionBuckets, long decisions, long decisionNanos) {
    /** Upper bounds of the decision-time buckets, in milliseconds. */
    public static final List<Double> BUCKETS_MILLIS = List.of(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 100.0);

    public PreemptionStats {
        decisionBuckets = List.copyOf(decisionBuckets);
    }

    public long decisionsOf(PreemptionKind kind) {
        return kind == PreemptionKind.PRIORITY ? priorityDecisions : reclaimDecisions;
    }
}
