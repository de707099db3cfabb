package dev.muster.core.status;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a PodGroup's {@code status.conditions}, as Volcano shapes it.
 *
 * @param type               {@link #SCHEDULED}, {@link #UNSCHEDULABLE} or {@link #PREEMPTED}
 * @param status             "True" or "False"
 * @param reason             CamelCase reason, e.g. {@link #NOT_ENOUGH_RESOURCES}
 * @param message            readable by a person ("" when there is nothing to say)
 * @param lastTransitionTime when {@code status} last changed, whole seconds (the API's precision); null only
 *                           for a rule's output before the fold stamps it
 */
public record PodGroupCondition(String type, String status, String reason, String message, Instant lastTransitionTime) {
    public static final String SCHEDULED = "Scheduled";
    public static final String UNSCHEDULABLE = "Unschedulable";
    public static final String TRUE = "True";
    public static final String FALSE = "False";
    public static final String NOT_ENOUGH_RESOURCES = "NotEnoughResources";
    public static final String NOT_ENOUGH_TASKS = "NotEnoughTasks";
    public static final String NOT_ENOUGH_PODS_OF_TASK = "NotEnoughPodsOfTask";
    public static final String NOT_INQUEUEABLE = "NotInqueueable";
    public static final String GANG_BOUND = "GangBound";
    /**
     * Members of the gang are being (or were) evicted by a preemption: True from the decision until the victims are
     * gone and the gang runs its minimum again, then False ({@link GangDisruption}).
     */
    public static final String PREEMPTED = "Preempted";
    /** {@link #PREEMPTED} True: a gang of higher priority takes the room. */
    public static final String PRIORITY_PREEMPTION = "PriorityPreemption";
    /** {@link #PREEMPTED} True: a queue below its fair share takes the room back. */
    public static final String QUEUE_RECLAIM = "QueueReclaim";
    /** {@link #PREEMPTED} False: the victims are gone and at least minMember members run again. */
    public static final String GANG_WHOLE = "GangWhole";

    public PodGroupCondition {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(status, "status");
        reason = reason == null ? "" : reason;
        message = message == null ? "" : message;
    }

    /** Same type and status: a change of reason or message alone is not a transition. */
    public boolean sameTransition(PodGroupCondition other) {
        return other != null && type.equals(other.type) && status.equals(other.status);
    }

    public PodGroupCondition at(Instant time) {
        return new PodGroupCondition(type, status, reason, message, time);
    }
}
