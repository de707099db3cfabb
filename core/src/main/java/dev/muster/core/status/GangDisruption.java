package dev.muster.core.status;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A gang's last preemption as its PodGroup's {@link PodGroupCondition#PREEMPTED} condition tells it. Immutable.
 *
 * <pre>
 *   decided ──victims gone and minMember members holding again──▶ settled (False, GangWhole)
 *      ▲                                                              │
 *      └──────────────────── preempted again ─────────────────────────┘
 * </pre>
 * A gang evicted whole stays True until it is scheduled again and its members hold their places; a gang that lost only
 * surplus members turns False once those are gone. After a controller restart the condition the object shows is
 * restored without its victims: it turns False as soon as the gang holds its minimum.
 *
 * @param active  True (decided, not settled)
 * @param reason  {@link PodGroupCondition#PRIORITY_PREEMPTION} or {@link PodGroupCondition#QUEUE_RECLAIM}
 * @param message what the victim was told ({@link PreemptionNotes#victim}); once settled, prefixed {@code whole again since: }
 * @param victims uids of the gang's evicted pods still holding their place when last looked at
 */
record GangDisruption(boolean active, String reason, String message, Set<String> victims) {
    GangDisruption {
        victims = Set.copyOf(victims);
    }

    static GangDisruption decided(String reason, String message, Set<String> victims) {
        return new GangDisruption(true, reason, message, victims);
    }

    /** From a {@link PodGroupCondition#PREEMPTED} condition the API shows, or null for any other. */
    static GangDisruption restored(PodGroupCondition c) {
        if (c == null || !PodGroupCondition.PREEMPTED.equals(c.type())) {
            return null;
        }
        boolean active = PodGroupCondition.TRUE.equals(c.status());
        return new GangDisruption(active, active ? c.reason() : PodGroupCondition.PRIORITY_PREEMPTION, c.message(), Set.of());
    }

    /**
     * This disruption after looking again: the victims that still hold their place ({@code holding}), and False once
     * none does and the gang is {@code whole}.
     */
    GangDisruption settled(Predicate<String> holding, boolean whole) {
        if (!active) {
            return this;
        }
        Set<String> left = new HashSet<>(victims);
        left.removeIf(holding.negate());
        if (left.isEmpty() && whole) {
            return new GangDisruption(false, reason, "whole again since: " + message, Set.of());
        }
        return left.size() == victims.size() ? this : new GangDisruption(true, reason, message, left);
    }

    PodGroupCondition condition() {
        return active
                ? new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.TRUE, reason, message, null)
                : new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.FALSE, PodGroupCondition.GANG_WHOLE, message, null);
    }
}
