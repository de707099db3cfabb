package dev.muster.core.status;

import java.util.Objects;
import dev.muster.core.model.QueueSpec;

/**
 * What the Queues service shows of a queue: its spec, its desired status, how many gangs hold a reservation in it,
 * its fair share and borrowed amount as the extender last computed them ({@code share} null: none reported yet), and
 * what preemption took from and gave to it since the controller started ({@link QueuePreemptions}). Immutable.
 */
public record QueueView(QueueSpec spec, QueueStatus status, int reservations, dev.muster.core.stream.AllocationEvent.QueueShareChanged share,
                        QueuePreemptions preemptions) {
    public QueueView {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(status, "status");
        preemptions = preemptions == null ? QueuePreemptions.NONE : preemptions;
    }

    public QueueView(QueueSpec spec, QueueStatus status, int reservations, dev.muster.core.stream.AllocationEvent.QueueShareChanged share) {
        this(spec, status, reservations, share, QueuePreemptions.NONE);
    }

    public QueueView(QueueSpec spec, QueueStatus status, int reservations) {
        this(spec, status, reservations, null);
    }

    public String name() {
        return spec.name();
    }
}
