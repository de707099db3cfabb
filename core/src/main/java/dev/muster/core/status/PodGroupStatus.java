package dev.muster.core.status;

import java.util.List;
import java.util.Objects;

/**
 * A PodGroup's status: as Volcano shapes it — phase, conditions, and how many member pods are running, succeeded and
 * failed — plus what scheduler-plugins' shape adds: how many members were {@code scheduled} (bound to a node, or
 * finished) and {@code occupiedBy}, the owners of its member pods ({@code namespace/name}, comma-separated; "" when
 * unknown) — plus what Kubernetes' v1beta1 shape adds: {@code initiallyScheduled}, the first {@code Scheduled=True}
 * condition the gang ever had (null before), which stays once set whatever happens to the members later (its
 * {@code PodGroupInitiallyScheduled} condition never goes back to False). Each API's adapter writes the part its shape
 * has. Immutable.
 */
public record PodGroupStatus(PodGroupPhase phase, List<PodGroupCondition> conditions, int running, int succeeded,
                             int failed, int scheduled, String occupiedBy, PodGroupCondition initiallyScheduled) implements DesiredStatus {
    public PodGroupStatus {
        Objects.requireNonNull(phase, "phase");
        conditions = conditions == null ? List.of() : List.copyOf(conditions);
        occupiedBy = occupiedBy == null ? "" : occupiedBy;
    }

    /** Never scheduled yet as far as this status knows. */
    public PodGroupStatus(PodGroupPhase phase, List<PodGroupCondition> conditions, int running, int succeeded,
                          int failed, int scheduled, String occupiedBy) {
        this(phase, conditions, running, succeeded, failed, scheduled, occupiedBy, null);
    }

    /** Volcano's part only (nothing scheduled, no owners known). */
    public PodGroupStatus(PodGroupPhase phase, List<PodGroupCondition> conditions, int running, int succeeded, int failed) {
        this(phase, conditions, running, succeeded, failed, 0, "");
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
