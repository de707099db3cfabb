package dev.muster.demo.cluster;

import dev.muster.controller.sync.ClusterObserver;
import dev.muster.core.status.PodObservation;
import java.util.Objects;

/**
 * What the controller's informers would do: Queues and PodGroups (spec plus the status the API shows — including
 * the controller's own writes coming back, as they do from a real API server), member pods' phase and binding,
 * and the end of the initial list. Nodes are not the controller's business. Stateless; called on its watch's
 * thread.
 */
public final class ControllerFeed implements ClusterListener {
    private final ClusterObserver observer;

    public ControllerFeed(ClusterObserver observer) {
        this.observer = Objects.requireNonNull(observer, "observer");
    }

    @Override
    public void onEvent(ClusterEvent event) {
        switch (event) {
            case ClusterEvent.NodeAdded n -> { }
            case ClusterEvent.PodChanged p -> observer.pod(new PodObservation(p.pod().uid(), p.pod().gang(), p.pod().phase(), p.pod().isBound()));
            case ClusterEvent.PodDeleted p -> observer.podDeleted(p.pod().uid());
            case ClusterEvent.PodGroupChanged g -> observer.podGroup(g.podGroup().spec(), g.podGroup().status());
            case ClusterEvent.PodGroupDeleted g -> observer.podGroupDeleted(g.key());
            case ClusterEvent.QueueChanged q -> observer.queue(q.queue().spec(), q.queue().status());
            case ClusterEvent.Synced s -> observer.synced();
        }
    }
}
