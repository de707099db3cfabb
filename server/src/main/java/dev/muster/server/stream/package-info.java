/**
 * The extender's side of the allocation stream: {@link dev.muster.server.stream.AllocationsService} serves
 * {@code Allocations.Watch} from the core's {@link dev.muster.core.stream.AllocationJournal} with per-call flow
 * control and no per-subscriber buffer ({@link dev.muster.server.stream.WatchCall}); only the leader serves, a
 * standby ends calls with the {@link dev.muster.common.rpc.LeaderRedirect} answer. The consumer side is the
 * controller's {@code dev.muster.controller.stream.AllocationStreamClient}.
 */
package dev.muster.server.stream;
