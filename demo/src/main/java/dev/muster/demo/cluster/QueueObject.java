package dev.muster.demo.cluster;

import dev.muster.core.model.QueueSpec;
import dev.muster.core.status.QueueStatus;
import java.util.Objects;

/**
 * A Volcano Queue as the embedded API server stores it: spec, the status last written (null before the
 * controller's first write), and how many status writes it received. Immutable.
 */
public record QueueObject(QueueSpec spec, QueueStatus status, long resourceVersion, long statusWrites) {
    public QueueObject {
        Objects.requireNonNull(spec, "spec");
    }

    public String name() {
        return spec.name();
    }
}
