package dev.muster.demo.cluster;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.status.PodGroupStatus;
import java.util.Objects;

/**
 * A Volcano PodGroup as the embedded API server stores it: spec, the status last written (null before the
 * controller's first write), its creation time (simulated nanoseconds) and how many status writes it
 * received. Immutable.
 */
public record PodGroupObject(PodGroupSpec spec, PodGroupStatus status, long createdAt, long resourceVersion, long statusWrites) {
    public PodGroupObject {
        Objects.requireNonNull(spec, "spec");
    }

    public GangKey key() {
        return spec.key();
    }
}
