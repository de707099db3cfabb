/**
 * The allocation stream over gRPC: the extender side
 * ({@link dev.muster.common.stream.AllocationsService}, serving {@code Allocations.Watch} from the core's
 * {@link dev.muster.core.stream.AllocationJournal} with per-call flow control and no per-subscriber
 * buffer) and the consumer side ({@link dev.muster.common.stream.AllocationStreamClient}, a reconnecting
 * client that resumes from its last applied sequence, follows leader redirects and delivers to a core
 * {@link dev.muster.core.stream.AllocationListener} each event exactly once, in order).
 */
package dev.muster.common.stream;
