package dev.muster.core.scheduler;

import dev.muster.core.gang.Backoff;
import dev.muster.core.scoring.ScoringPolicy;
import java.time.Duration;

/**
 * Settings of the scheduling core.
 *
 * @param policy          how non-slot nodes are ranked (binpack or spread)
 * @param gangDeadline    default time a reservation waits for its members' binds
 * @param backoff         delay before an expired gang is planned again
 * @param decisionCache   how many filter decisions are kept for the prioritize that follows
 * @param decisionTtl     how long a kept decision stays valid
 */
public record SchedulerConfig(ScoringPolicy policy, Duration gangDeadline, Backoff backoff, int decisionCache, Duration decisionTtl) {
    public static final SchedulerConfig DEFAULT =
            new SchedulerConfig(ScoringPolicy.BINPACK, Duration.ofSeconds(60), Backoff.DEFAULT, 4096, Duration.ofSeconds(30));

    public SchedulerConfig withPolicy(ScoringPolicy p) {
        return new SchedulerConfig(p, gangDeadline, backoff, decisionCache, decisionTtl);
    }

    public SchedulerConfig withGangDeadline(Duration d) {
        return new SchedulerConfig(policy, d, backoff, decisionCache, decisionTtl);
    }

    public SchedulerConfig withBackoff(Backoff b) {
        return new SchedulerConfig(policy, gangDeadline, b, decisionCache, decisionTtl);
    }
}
