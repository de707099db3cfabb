/**
 * Waking pods kube-scheduler parked: {@link dev.muster.server.wake.KubePodWaker} turns the core's wakes
 * ({@link dev.muster.core.scheduler.PodWaker}) into pod status patches, paced and leader-only.
 */
package dev.muster.server.wake;
