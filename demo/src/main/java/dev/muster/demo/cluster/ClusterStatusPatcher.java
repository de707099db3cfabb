package dev.muster.demo.cluster;

import dev.muster.controller.writer.StatusPatchException;
import dev.muster.controller.writer.StatusPatcher;
import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusKey;
import java.util.Objects;

/**
 * The controller's {@link StatusPatcher} on the embedded cluster: one status write per call, stored on the
 * object (the controller's write comes back to it through its watch, as it would from an API server). A
 * missing object is a 404 the writer retries. Stateless; thread-safe.
 */
public final class ClusterStatusPatcher implements StatusPatcher {
    private final EmbeddedCluster cluster;

    public ClusterStatusPatcher(EmbeddedCluster cluster) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
    }

    @Override
    public void patch(StatusKey key, DesiredStatus desired, DesiredStatus previous) throws StatusPatchException {
        try {
            switch (key) {
                case StatusKey.Queue q -> cluster.patchQueueStatus(q.name(), (QueueStatus) desired);
                case StatusKey.PodGroup p -> cluster.patchPodGroupStatus(p.gang(), (PodGroupStatus) desired);
            }
        } catch (ClusterException e) {
            throw new StatusPatchException(StatusPatchException.Kind.ofHttpStatus(e.reason().httpStatus()), e.reason().httpStatus(),
                    "status of " + key + ": " + e.getMessage());
        }
    }
}
