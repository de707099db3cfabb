package dev.muster.core.status;

import dev.muster.core.model.GangState;

/**
 * The PodGroup phase rule, a pure function of the previous phase and the current facts.
 *
 * <pre>
 *   Pending ──gang ADMITTED/RESERVED/BOUND──▶ Inqueue ──≥ minMember bound (or finished ok)──▶ Running
 *                                                                                           │    │
 *          all members finished, none waiting ◀──────────────────────────────────────────────┘    │
 *   Completed ◀──┘                               members vanish or fail below minMember ──▶ Unknown
 * </pre>
 *
 * <ul>
 *   <li><b>Running</b>: at least one member is bound and not finished, and bound + succeeded ≥ minMember
 *       (Volcano counts succeeded members towards the gang).</li>
 *   <li><b>Completed</b>: no member is waiting or active and some finished — after having run, or with at
 *       least minMember finished. Completed stays Completed while nothing runs or waits again (members are often
 *       deleted after they finish). Never while the gang is preempted (its {@link PodGroupCondition#PREEMPTED} is
 *       True): members that stopped because they were evicted did not finish the gang's work, whatever their exit.</li>
 *   <li><b>Unknown</b>: it was Running (or Unknown) and lost quorum without completing and without being preempted —
 *       unless the extender is placing the gang anew (ADMITTED/RESERVED), which makes it Inqueue.</li>
 *   <li><b>Inqueue</b>: the extender admitted, reserved or bound the gang but too few members run yet (a preempted
 *       gang: admitted or reserved — the BOUND its evicted members had is no longer so).</li>
 *   <li><b>Pending</b>: everything else (waiting for members, unschedulable, backing off, a preempted gang whose
 *       members are being evicted or made again).</li>
 * </ul>
 * A gang whose members were evicted and are made again by their controller (a Job) is thus waiting — Pending, then
 * Inqueue — from the decision until it runs again, as Volcano's own scheduler reports an evicted job.
 * minMember 0 is treated as 1. Stateless and thread-safe.
 */
public final class PodGroupPhases {
    private PodGroupPhases() {}

    /**
     * @param previous the phase last computed (or observed in the API before the first computation); null
     *                 for a new PodGroup
     * @param gang     the extender's latest state for the gang, or null when the stream never mentioned it
     */
    public static PodGroupPhase next(PodGroupPhase previous, int minMember, GangState gang, MemberCounts members) {
        return next(previous, minMember, gang, members, false);
    }

    /**
     * @param preempted a preemption took members from the gang and it has not run its minimum since (its
     *                  {@link PodGroupCondition#PREEMPTED} condition is True)
     */
    public static PodGroupPhase next(PodGroupPhase previous, int minMember, GangState gang, MemberCounts members, boolean preempted) {
        int need = Math.max(1, minMember);
        if (members.active() > 0 && members.active() + members.succeeded() >= need) {
            return PodGroupPhase.RUNNING;
        }
        boolean placing = gang == GangState.ADMITTED || gang == GangState.RESERVED;
        if (preempted) {
            return placing ? PodGroupPhase.INQUEUE : PodGroupPhase.PENDING;
        }
        boolean ran = previous == PodGroupPhase.RUNNING || previous == PodGroupPhase.UNKNOWN
                || previous == PodGroupPhase.COMPLETED;
        boolean allFinished = members.unfinished() == 0 && members.finished() > 0;
        if (allFinished && (ran || members.finished() >= need)) {
            return PodGroupPhase.COMPLETED;
        }
        if (previous == PodGroupPhase.COMPLETED && members.unfinished() == 0) {
            return PodGroupPhase.COMPLETED;
        }
        if ((previous == PodGroupPhase.RUNNING || previous == PodGroupPhase.UNKNOWN) && !placing) {
            return PodGroupPhase.UNKNOWN;
        }
        if (placing || gang == GangState.BOUND) {
            return PodGroupPhase.INQUEUE;
        }
        return PodGroupPhase.PENDING;
    }
}
