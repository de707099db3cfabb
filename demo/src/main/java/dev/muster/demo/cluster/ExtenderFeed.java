package dev.muster.demo.cluster;

import dev.muster.core.scheduler.ClusterSink;
import java.util.Objects;

/**
 * What the extender's informers would do: every watch event becomes the matching {@link ClusterSink} call
 * (the same port {@code server.sync} feeds from the Kubernetes API), and the end of the initial list marks the
 * scheduling core synced. Stateless; called on its watch's thread.
 */
public final class ExtenderFeed implements ClusterListener {
    private final ClusterSink sink;

    public ExtenderFeed(ClusterSink sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    @Override
    public void onEvent(ClusterEvent event) {
        switch (event) {
            case ClusterEvent.NodeAdded n -> sink.upsertNode(n.node());
            case ClusterEvent.PodChanged p -> sink.upsertPod(p.pod().toCorePod());
            case ClusterEvent.PodDeleted p -> sink.deletePod(p.pod().uid());
            case ClusterEvent.PodGroupChanged g -> sink.upsertPodGroup(g.podGroup().spec());
            case ClusterEvent.PodGroupDeleted g -> sink.deletePodGroup(g.key());
            case ClusterEvent.QueueChanged q -> sink.upsertQueue(q.queue().spec());
            case ClusterEvent.Synced s -> sink.markSynced();
        }
    }
}
