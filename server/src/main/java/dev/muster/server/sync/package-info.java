/**
 * Cluster sync: client-java informers (list + watch + periodic resync) over Nodes, Pods (all namespaces), Volcano
 * PodGroups and Queues, feeding the scheduling core's {@link dev.muster.core.scheduler.ClusterSink}.
 *
 * <p>{@link dev.muster.server.sync.ClusterSync} owns the informers and the one-time
 * {@link dev.muster.core.scheduler.ClusterSink#markSynced()} (via {@link dev.muster.common.kube.InitialSync}).
 * {@link dev.muster.server.sync.ClusterEventHandler} is the narrow, API-server-free port that translates
 * added/updated/deleted objects into sink calls; it catches and logs every failure per object (one bad
 * object never stops sync). Pods are read by {@link dev.muster.common.kube.SlimListerWatcher}, which decodes only what the
 * scheduler reads.
 */
package dev.muster.server.sync;
