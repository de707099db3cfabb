package dev.muster.demo.cluster;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;

/**
 * One change a watch delivers, carrying the object as it is after the change (like an informer's
 * notification). {@link Synced} ends the initial list.
 */
public sealed interface ClusterEvent {
    record NodeAdded(Node node) implements ClusterEvent {}

    record PodChanged(ClusterPod pod) implements ClusterEvent {}

    /** The pod as it was when deleted. */
    record PodDeleted(ClusterPod pod) implements ClusterEvent {}

    record PodGroupChanged(PodGroupObject podGroup) implements ClusterEvent {}

    record PodGroupDeleted(GangKey key) implements ClusterEvent {}

    record QueueChanged(QueueObject queue) implements ClusterEvent {}

    /** Every object that existed when the watch started has been delivered. */
    record Synced() implements ClusterEvent {}
}
