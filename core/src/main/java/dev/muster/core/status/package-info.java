/**
 * Status folding: the controller's level-based view of what Queue and PodGroup status should say.
 *
 * <p>{@link dev.muster.core.status.StatusFolding} owns the state: it folds the allocation stream (through the
 * one shared fold, {@link dev.muster.core.stream.AllocationTotals}), PodGroup, Queue and pod observations into
 * one desired status per object ({@link dev.muster.core.status.QueueStatus},
 * {@link dev.muster.core.status.PodGroupStatus}), and tells a {@link dev.muster.core.status.StatusChangeListener}
 * which objects changed. The values are immutable records, so "desired equals last written" is {@code equals}.
 * The phase and condition rules are pure functions ({@link dev.muster.core.status.PodGroupPhases},
 * {@link dev.muster.core.status.PodGroupConditions}) so they can be read and tested on their own.
 *
 * <p>Plain Java: no Kubernetes, gRPC or JSON types. Memory is O(queues + PodGroups + live pods), whatever the
 * event rate.
 */
package dev.muster.core.status;
