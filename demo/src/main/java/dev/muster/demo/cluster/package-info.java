/**
 * The embedded cluster: an in-memory API server for nodes, pods, PodGroups and Queues
 * ({@link dev.muster.demo.cluster.EmbeddedCluster}) behind the same ports the Kubernetes adapters implement.
 * Watches deliver its changes like informers do — the current list, a synced marker, then every change in
 * order, asynchronously, each watcher on its own thread — to the extender's
 * {@link dev.muster.core.scheduler.ClusterSink} ({@link dev.muster.demo.cluster.ExtenderFeed}), the
 * controller's {@link dev.muster.controller.sync.ClusterObserver} ({@link dev.muster.demo.cluster.ControllerFeed}),
 * the simulated {@link dev.muster.demo.cluster.Kubelet} and the scheduler driver. It is the extender's
 * {@link dev.muster.core.gang.Binder} ({@link dev.muster.demo.cluster.ClusterBinder}) and the controller's
 * {@link dev.muster.controller.writer.StatusPatcher} ({@link dev.muster.demo.cluster.ClusterStatusPatcher}), and the
 * extender's {@link dev.muster.core.preempt.Evictor} ({@link dev.muster.demo.cluster.ClusterEvictor}: an evicted pod is
 * deleted and its controller's replacement created, as a Job's would be).
 */
package dev.muster.demo.cluster;
