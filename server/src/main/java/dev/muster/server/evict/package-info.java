/**
 * Taking capacity back, the Kubernetes side: {@link dev.muster.server.evict.KubeEvictor} implements the core's
 * {@link dev.muster.core.preempt.Evictor} port with the {@code policy/v1} Eviction API (so PodDisruptionBudgets hold),
 * and {@link dev.muster.server.evict.KubeDisruptionBudgets} the {@link dev.muster.core.preempt.DisruptionBudgets} port,
 * from the PodDisruptionBudgets and pods the cluster sync watches.
 */
package dev.muster.server.evict;
