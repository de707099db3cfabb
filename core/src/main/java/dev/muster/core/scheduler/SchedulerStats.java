package dev.muster.core.scheduler;

import dev.muster.core.stream.GangState;
import java.util.Map;

/** A consistent, immutable picture of the core for metrics and readiness. */
public record SchedulerStats(int nodes, int overcommittedNodes, int podsHoldingResources, int reservations,
                             int waitingBinds, Map<GangState, Integer> gangsByState, boolean synced) {
    public SchedulerStats {
        gangsByState = Map.copyOf(gangsByState);
    }
}
