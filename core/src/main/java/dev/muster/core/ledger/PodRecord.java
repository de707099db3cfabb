package dev.muster.core.ledger;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;

/**
 * A pod holding resources on a node. {@code assumed} marks a bind we made that the cluster has not yet
 * shown back to us; {@code queue} is fixed at allocation so the release is charged to the same queue.
 */
public record PodRecord(PodId pod, String node, Resources request, GangKey gang, String queue, boolean assumed) {
    public PodRecord confirmed() {
        return assumed ? new PodRecord(pod, node, request, gang, queue, false) : this;
    }
}
