package dev.muster.core.status;

import dev.muster.core.model.PodGroupSpec;
import java.util.ArrayDeque;
import java.util.List;

/** A gang's aggregate in the {@link StatusFolding}. Confined to the fold's lock. */
final class GangRecord {
    PodGroupSpec spec; // null until observed, and after deletion
    MemberCounts members = MemberCounts.NONE;
    PodGroupPhase phase; // last computed (or observed before the first computation)
    List<PodGroupCondition> conditions = List.of(); // last computed, stamped
    PodGroupStatus desired; // null while spec is null
    String countedQueue; // the queue whose phase counts include this gang, or null
    PodGroupPhase countedPhase;
    String occupiedBy = ""; // the owners of the first member seen that has any (scheduler-plugins' occupiedBy)
    PodGroupCondition initiallyScheduled; // the first Scheduled=True, kept from then on (or as observed), null before
    Strength strength = Strength.UNPROVEN;
    final ArrayDeque<String> lost = new ArrayDeque<>(); // members that stopped holding since the gang was last whole; ≤ MAX_LOST
    GangDisruption disruption; // its last preemption, or null

    /** Where a gang stands against its minimum, for shortfall reports ({@link ShortfallDetector}). */
    enum Strength {
        /** Not yet seen whole after it was scheduled: nothing to lose (also after a restart, until it is seen whole). */
        UNPROVEN,
        WHOLE,
        SHORT
    }

    /** Takes the newly stamped conditions; the first Scheduled=True among them is kept for good. */
    void stamped(List<PodGroupCondition> now) {
        conditions = now;
        if (initiallyScheduled == null) {
            for (PodGroupCondition c : now) {
                if (c.type().equals(PodGroupCondition.SCHEDULED) && PodGroupCondition.TRUE.equals(c.status())) {
                    initiallyScheduled = c;
                    break;
                }
            }
        }
    }

    /** Forgets everything the PodGroup object told (it was deleted); its member pods stay counted. */
    void forgetPodGroup() {
        spec = null;
        desired = null;
        phase = null;
        conditions = List.of();
        initiallyScheduled = null;
        disruption = null;
        strength = Strength.UNPROVEN;
        lost.clear();
    }
}
