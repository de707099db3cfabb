package dev.muster.core.status;

import java.util.Objects;
import dev.muster.core.model.QueueSpec;

/**
 * What the Queues service shows of a queue: its spec, its desired status, and how many gangs hold a
 * reservation in it. Immutable.
 */
public record QueueView(QueueSpec spec, QueueStatus status, int reservations) {
    public QueueView {
        Objects.requireNonNull(spec, "spec");
        Objects.requireNonNull(status, "status");
    }

    public String name() {
        return spec.name();
    }
}
