package dev.muster.core.status;

import java.util.List;
import java.util.Objects;

/**
 * A PodGroup's status as Volcano shapes it: phase, conditions, and how many member pods are running,
 * succeeded and failed. Immutable.
 */
public record PodGroupStatus(PodGroupPhase phase, List<PodGroupCondition> conditions, int running, int succeeded,
                             int failed) implements DesiredStatus {
    public PodGroupStatus {
        Objects.requireNonNull(phase, "phase");
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
    }

    /** The condition of {@code type}, or null. */
    public PodGroupCondition condition(String type) {
        for (PodGroupCondition c : conditions) {
            if (c.type().equals(type)) {
                return c;
            }
        }
        return null;
    }
}
