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
 * @param name   {@code namespace/name}, for reports that name a member (the uid when not known)
 */
public record PodObservation(String uid, GangKey gang, PodPhase phase, boolean bound, String owners, String name) {
    public PodObservation {
        Objects.requireNonNull(uid, "uid");
        phase = phase == null ? PodPhase.PENDING : phase;
        owners = owners == null ? "" : owners;
        name = name == null || name.isEmpty() ? uid : name;
    }

    /** A pod known by its uid only. */
    public PodObservation(String uid, GangKey gang, PodPhase phase, boolean bound, String owners) {
        this(uid, gang, phase, bound, owners, null);
    }

    /** Holds its place in the gang: bound (or running) and not failed, or succeeded. */
    public boolean holding() {
        return phase == PodPhase.SUCCEEDED || (phase != PodPhase.FAILED && (bound || phase == PodPhase.RUNNING));
    }

    /** A pod without owner references. */
    public PodObservation(String uid, GangKey gang, PodPhase phase, boolean bound) {
        this(uid, gang, phase, bound, "");
    }
}
