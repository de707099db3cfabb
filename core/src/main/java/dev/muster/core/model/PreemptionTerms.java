package dev.muster.core.model;

import java.util.Objects;

/**
 * What a PodGroup says about preemption, whichever API it was written in: its own priority, whether it may preempt
 * others, and how it may itself be disrupted. Only Kubernetes' PodGroup sets these ({@code priority},
 * {@code preemptionPolicy}, {@code disruptionMode}); the others get {@link #DEFAULT}.
 *
 * @param priority         the PodGroup's priority, or null when it has none (the members' pod priority counts then)
 * @param preemptionPolicy whether the gang may preempt gangs and pods of lower priority
 * @param disruption       how the running gang may be disrupted ({@link DisruptionMode#mayLose})
 */
public record PreemptionTerms(Integer priority, PreemptionPolicy preemptionPolicy, DisruptionMode disruption) {
    /** No priority of its own, may preempt lower priorities, disrupted member by member (surplus only). */
    public static final PreemptionTerms DEFAULT = new PreemptionTerms(null, PreemptionPolicy.PREEMPT_LOWER_PRIORITY, DisruptionMode.SINGLE);

    public PreemptionTerms {
        preemptionPolicy = Objects.requireNonNullElse(preemptionPolicy, PreemptionPolicy.PREEMPT_LOWER_PRIORITY);
        disruption = Objects.requireNonNullElse(disruption, DisruptionMode.SINGLE);
    }
}
