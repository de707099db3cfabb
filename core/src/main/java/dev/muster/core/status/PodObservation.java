package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodPhase;
import java.util.Objects;

/**
 * What the controller needs of a pod (the stream carries allocations, not pod phases): its gang, its phase,
 * and whether it is bound to a node.
 *
 * @param gang  the PodGroup it belongs to, or null for a pod outside any gang (ignored by the fold)
 * @param bound  {@code spec.nodeName} is set
 * @param owners the pod's owner references as {@code namespace/name}, sorted, comma-separated ("" when none) — what
 *               scheduler-plugins reports as a PodGroup's {@code occupiedBy}
 */
public record PodObservation(String uid, GangKey gang, PodPhase phase, boolean bound, String owners) {
    public PodObservation {
        Objects.requireNonNull(uid, "uid");
        phase = phase == null ? PodPhase.PENDING : phase;
        owners = owners == null ? "" : owners;
    }

    /** A pod without owner references. */
    public PodObservation(String uid, GangKey gang, PodPhase phase, boolean bound) {
        this(uid, gang, phase, bound, "");
    }
}
