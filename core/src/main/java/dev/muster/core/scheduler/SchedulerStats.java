package dev.muster.core.scheduler;

import dev.muster.core.queue.FairShare;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.GangState;
import java.util.Map;

/**
 * A consistent, immutable picture of the core for metrics and readiness. {@code waitingBinds} are binds at a
 * gang's barrier (on a claimed slot); {@code heldBinds} are binds of members whose gang is not admitted yet;
 * {@code gangsByCause} counts gangs (with a PodGroup) whose state carries a refusal, by its cause; {@code queueShares}
 * are each queue's held, fair share and borrowed amounts as of the last admission pass; {@code nextInLine} is the gang
 * room is set aside for ("" when none).
 */
public record SchedulerStats(int nodes, int overcommittedNodes, int podsHoldingResources, int reservations,
                             int waitingBinds, int heldBinds, Map<GangState, Integer> gangsByState,
                             Map<Refusal.Cause, Integer> gangsByCause, boolean synced, Map<String, FairShare.Share> queueShares,
                             String nextInLine) {
    public SchedulerStats {
        gangsByState = Map.copyOf(gangsByState);
        gangsByCause = Map.copyOf(gangsByCause);
        queueShares = Map.copyOf(queueShares);
        nextInLine = nextInLine == null ? "" : nextInLine;
    }
}
