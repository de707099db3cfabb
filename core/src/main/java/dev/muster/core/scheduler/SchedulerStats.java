package dev.muster.core.scheduler;

import dev.muster.core.queue.FairShare;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.GangState;
import java.util.Map;

/**
 * A consistent, immutable picture of the core for metrics and readiness, read from the books under the core's lock
 * (so its numbers agree with each other). {@code waitingBinds} are binds at a gang's barrier (on a claimed slot);
 * {@code heldBinds} are binds held while Muster retries (gang not admitted, or no slot claimable on kube-scheduler's
 * node yet); {@code bindingsInFlight} are Binding POSTs not answered yet; {@code idleGangs} are gangs with a PodGroup
 * that wait for nothing (no member pending: a finished run, or no pods yet) and are not counted in {@code gangsByState};
 * {@code gangsByCause} counts gangs (with a PodGroup) whose state carries a refusal, by its cause; {@code queueShares}
 * are each queue's held, fair share and borrowed amounts as of the last admission pass; {@code nextInLine} is the gang
 * room is set aside for ("" when none); {@code gangsGated} counts gangs kept behind a scheduling gate at the last sweep
 * of the queue-admission gate, by cause ({@link dev.muster.core.gang.GateLifts}: queue, hold, foreign-gate).
 */
public record SchedulerStats(int nodes, int overcommittedNodes, int podsHoldingResources, int reservations,
                             int waitingBinds, int heldBinds, int bindingsInFlight, int idleGangs, Map<GangState, Integer> gangsByState,
                             Map<Refusal.Cause, Integer> gangsByCause, boolean synced, Map<String, FairShare.Share> queueShares,
                             String nextInLine, Map<String, Integer> gangsGated) {
    public SchedulerStats {
        gangsByState = Map.copyOf(gangsByState);
        gangsByCause = Map.copyOf(gangsByCause);
        queueShares = Map.copyOf(queueShares);
        nextInLine = nextInLine == null ? "" : nextInLine;
        gangsGated = gangsGated == null ? Map.of() : Map.copyOf(gangsGated);
    }
}
