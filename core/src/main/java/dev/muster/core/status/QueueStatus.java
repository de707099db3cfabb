package dev.muster.core.status;

import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import java.util.Objects;

/**
 * A Queue's status as Volcano shapes it: the state, how many of its PodGroups are in each phase, and the
 * resources allocated to its pods. Immutable.
 */
public record QueueStatus(QueueState state, int pending, int inqueue, int running, int unknown, int completed,
                          Resources allocated) implements DesiredStatus {
    public QueueStatus {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(allocated, "allocated");
    }

    /** PodGroups that still hold or wait for capacity: every phase but Completed. */
    public int active() {
        return pending + inqueue + running + unknown;
    }
}
