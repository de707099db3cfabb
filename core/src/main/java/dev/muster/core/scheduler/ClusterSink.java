package dev.muster.core.scheduler;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;

/**
 * What cluster sync (informers, or the embedded cluster) tells the scheduling core. Every method is an
 * observation of the truth and is idempotent: the same upsert twice, a delete of something never seen,
 * or an update that arrives out of order is absorbed, never thrown. Implementations are
 * thread-safe.
 */
public interface ClusterSink {
    void upsertNode(Node node);

    void deleteNode(String name);

    /** A pod, pending or bound, with its current phase. Bound and not finished = it holds resources. */
    void upsertPod(Pod pod);

    void deletePod(String uid);

    void upsertPodGroup(PodGroupSpec podGroup);

    void deletePodGroup(GangKey key);

    void upsertQueue(QueueSpec queue);

    void deleteQueue(String name);

    /** Called once every source has listed everything and the state above reflects it. */
    void markSynced();
}
