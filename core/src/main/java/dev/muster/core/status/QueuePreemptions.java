package dev.muster.core.status;

import dev.muster.core.preempt.Victim;
import dev.muster.core.resources.Resources;
import java.util.Objects;

/**
 * What preemption took from and gave to one queue, counted from the decisions the fold has seen since it started
 * (the allocation stream carries decisions as they happen; a resynchronising snapshot does not repeat them). Victims'
 * pods and the room they held: lost to queue reclaim (as a victim queue), won by reclaim (as the reclaiming queue),
 * and preempted by priority (victims of this queue evicted for a gang of higher priority). Immutable.
 */
public record QueuePreemptions(int lostToReclaimPods, Resources lostToReclaim, int wonByReclaimPods, Resources wonByReclaim,
                               int preemptedPods, Resources preempted) {
    public static final QueuePreemptions NONE = new QueuePreemptions(0, Resources.ZERO, 0, Resources.ZERO, 0, Resources.ZERO);

    public QueuePreemptions {
        Objects.requireNonNull(lostToReclaim, "lostToReclaim");
        Objects.requireNonNull(wonByReclaim, "wonByReclaim");
        Objects.requireNonNull(preempted, "preempted");
    }

    QueuePreemptions lostToReclaim(Victim v) {
        return new QueuePreemptions(lostToReclaimPods + 1, lostToReclaim.plus(v.resources()), wonByReclaimPods, wonByReclaim,
                preemptedPods, preempted);
    }

    QueuePreemptions wonByReclaim(Victim v) {
        return new QueuePreemptions(lostToReclaimPods, lostToReclaim, wonByReclaimPods + 1, wonByReclaim.plus(v.resources()),
                preemptedPods, preempted);
    }

    QueuePreemptions preempted(Victim v) {
        return new QueuePreemptions(lostToReclaimPods, lostToReclaim, wonByReclaimPods, wonByReclaim, preemptedPods + 1,
                preempted.plus(v.resources()));
    }
}
