package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A gang's last preemption as its PodGroup's {@link PodGroupCondition#PREEMPTED} condition tells it. Immutable.
 *
 * <pre>
 *   decided ──victims gone and minMember members running again──▶ settled (False, GangWhole)
 *      ▲                                                              │
 *      └──────────────────── preempted again ─────────────────────────┘
 * </pre>
 * A gang evicted whole stays True until it is scheduled again and at least minMember members are bound and not finished
 * (members that exited when evicted, even with success, do not count: the gang did not run again); a gang that lost
 * only surplus members turns False once those are gone. When the preemptor gives up (its preemption abandoned, its
 * reservation expired, it was deleted) the victims not evicted are no longer waited for. A victim leaves the set once it no longer holds its place
 * (being deleted, failed, gone) and does not come back. After a controller restart the condition the object shows is
 * restored without its victims: it turns False as soon as the gang runs its minimum.
 *
 * @param active  True (decided, not settled)
 * @param reason  {@link PodGroupCondition#PRIORITY_PREEMPTION} or {@link PodGroupCondition#QUEUE_RECLAIM}
 * @param message what the victim was told ({@link PreemptionNotes#victim}); once settled, prefixed {@code whole again since: }
 * @param victims   uids of the gang's evicted pods still holding their place when last looked at
 * @param preemptor the gang that took the room (null when restored from the object)
 */
record GangDisruption(boolean active, String reason, String message, Set<String> victims, GangKey preemptor) {
    GangDisruption {
        victims = Set.copyOf(victims);
    }

    static GangDisruption decided(String reason, String message, Set<String> victims, GangKey preemptor) {
        return new GangDisruption(true, reason, message, victims, preemptor);
    }

    /** The preemption by {@code by} was abandoned: the victims it did not evict stay, and are no longer waited for. */
    GangDisruption reprieved(GangKey by) {
        return active && by.equals(preemptor) ? new GangDisruption(true, reason, message, Set.of(), preemptor) : this;
    }

    /** From a {@link PodGroupCondition#PREEMPTED} condition the API shows, or null for any other. */
    static GangDisruption restored(PodGroupCondition c) {
        if (c == null || !PodGroupCondition.PREEMPTED.equals(c.type())) {
            return null;
        }
        boolean active = PodGroupCondition.TRUE.equals(c.status());
        return new GangDisruption(active, active ? c.reason() : PodGroupCondition.PRIORITY_PREEMPTION, c.message(), Set.of(), null);
    }

    /**
     * This disruption after looking again: the victims that still hold their place ({@code holding}), and False once
     * none does and the gang {@code runsAgain}.
     */
    GangDisruption settled(Predicate<String> holding, boolean runsAgain) {
        if (!active) {
            return this;
        }
        Set<String> left = new HashSet<>(victims);
        left.removeIf(holding.negate());
        if (left.isEmpty() && runsAgain) {
            return new GangDisruption(false, reason, "whole again since: " + message, Set.of(), preemptor);
        }
        return left.size() == victims.size() ? this : new GangDisruption(true, reason, message, left, preemptor);
    }

    PodGroupCondition condition() {
        return active
                ? new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.TRUE, reason, message, null)
                : new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.FALSE, PodGroupCondition.GANG_WHOLE, message, null);
    }
}
