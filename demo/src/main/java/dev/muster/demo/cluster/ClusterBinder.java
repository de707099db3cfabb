package dev.muster.demo.cluster;

import dev.muster.core.model.PodId;
import dev.muster.core.gang.Binder;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * The extender's {@link Binder} on the embedded cluster: a {@code v1 Binding} call, made on {@code executor}
 * so the caller never waits. As {@code server.bind.KubeBinder} does with a real API server, a 409 is checked
 * against the pod: already bound to the same node (an earlier attempt that did land) is success. Thread-safe.
 */
public final class ClusterBinder implements Binder {
    private final EmbeddedCluster cluster;
    private final Executor executor;

    public ClusterBinder(EmbeddedCluster cluster, Executor executor) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.executor = Objects.requireNonNull(executor, "executor");
    }

    @Override
    public CompletionStage<Void> bind(PodId pod, String node) {
        return CompletableFuture.runAsync(() -> {
            try {
                cluster.bind(pod, node);
            } catch (ClusterException e) {
                ClusterPod now = cluster.pod(pod.uid());
                if (e.reason() == ClusterException.Reason.CONFLICT && now != null && node.equals(now.nodeName())) {
                    return;
                }
                throw new CompletionException(new IllegalStateException("binding " + pod + " to " + node + ": HTTP "
                        + e.reason().httpStatus() + " " + e.getMessage(), e));
            }
        }, executor);
    }
}
