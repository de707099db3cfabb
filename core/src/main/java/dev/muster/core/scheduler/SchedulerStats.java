package dev.muster.core.scheduler;

import dev.muster.core.stream.GangState;
import java.util.Map;

/**
 * A consistent, immutable picture of the core for metrics and readiness. {@code waitingBinds} are binds at a
 * gang's barrier (on a claimed slot); {@code heldBinds} are binds of members whose gang is not admitted yet.
 */
public record SchedulerStats(int nodes, int overcommittedNodes, int podsHoldingResources, int reservations,
                             int waitingBinds, int heldBinds, Map<GangState, Integer> gangsByState, boolean synced) {
    public SchedulerStats {
        gangsByState = Map.copyOf(gangsByState);
    }
}
