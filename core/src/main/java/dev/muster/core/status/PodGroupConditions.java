package dev.muster.core.status;

import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import java.util.ArrayList;
import java.util.List;

/**
 * The PodGroup condition rule, a pure function of the current facts. Conditions come out without
 * {@code lastTransitionTime}; {@link StatusFolding} stamps them, keeping the previous time while type and
 * status stay the same.
 *
 * <ul>
 *   <li>{@code Scheduled=True} (reason {@code GangBound}) when at least minMember members are bound (or bound and
 *       succeeded) and the extender bound the gang or it runs, or when the gang completed. Never with fewer than
 *       minMember bound: Kubernetes has no multi-pod binding, and a member deleted as the barrier opened leaves
 *       the others bound. A gang whose members were evicted is not Completed ({@link PodGroupPhases}), so it reads
 *       Scheduled again only once minMember of its new members are bound.</li>
 *   <li>{@code Unschedulable=True} while the extender reports the gang UNSCHEDULABLE, EXPIRED or BACKED_OFF. The
 *       reason follows Volcano's from the extender's refusal cause: {@code NotEnoughTasks} (members missing, or a
 *       member failed to bind), {@code NotEnoughPodsOfTask} (a task short of its minTaskMember),
 *       {@code NotInqueueable} (the queue refused: missing, closed, capability, full), else
 *       {@code NotEnoughResources}. The message is the extender's text, as {@code kubectl describe} shows it.
 *       Also while the gang is RESERVED but waits for the pods of a task short of its minTaskMember (its barrier cannot
 *       open before they exist): {@code NotEnoughPodsOfTask}, naming the task.</li>
 * </ul>
 * Never both: a gang that holds its minimum is Scheduled, and a refusal of its further members (pods made beyond
 * minMember, or made again for evicted surplus members) is told on those pods by kube-scheduler, not on the group.
 * Stateless and thread-safe.
 */
public final class PodGroupConditions {
    private PodGroupConditions() {}

    public static List<PodGroupCondition> desired(PodGroupPhase phase, int minMember, GangState gang, Refusal why,
                                                  MemberCounts members) {
        List<PodGroupCondition> out = new ArrayList<>(2);
        int need = Math.max(1, minMember);
        boolean quorum = members.active() > 0 && members.active() + members.succeeded() >= need;
        boolean scheduled = ((gang == GangState.BOUND || phase == PodGroupPhase.RUNNING) && quorum) || phase == PodGroupPhase.COMPLETED;
        if (scheduled) {
            out.add(new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE, PodGroupCondition.GANG_BOUND,
                    "at least " + need + " members bound together", null));
        }
        boolean waitsForTask = gang == GangState.RESERVED && why != null && why.cause() == Refusal.Cause.TASK_MEMBERS_MISSING;
        boolean refused = gang == GangState.UNSCHEDULABLE || gang == GangState.EXPIRED || gang == GangState.BACKED_OFF || waitsForTask;
        if (refused && !scheduled) {
            Refusal r = why == null ? Refusal.NONE : why;
            out.add(new PodGroupCondition(PodGroupCondition.UNSCHEDULABLE, PodGroupCondition.TRUE, reasonOf(r.cause(), members, minMember),
                    r.text().isEmpty() ? defaultMessage(gang, members, minMember) : r.text(), null));
        }
        return out;
    }

    /** Volcano's condition reason for a refusal cause; without one, from the member count. */
    static String reasonOf(Refusal.Cause cause, MemberCounts members, int minMember) {
        return switch (cause) {
            case MEMBERS_MISSING, BIND_FAILED -> PodGroupCondition.NOT_ENOUGH_TASKS;
            case TASK_MEMBERS_MISSING -> PodGroupCondition.NOT_ENOUGH_PODS_OF_TASK;
            case QUEUE_MISSING, QUEUE_CLOSED, QUEUE_CAPABILITY, QUEUE_FULL -> PodGroupCondition.NOT_INQUEUEABLE;
            case NONE -> members.unfinished() < minMember ? PodGroupCondition.NOT_ENOUGH_TASKS : PodGroupCondition.NOT_ENOUGH_RESOURCES;
            default -> PodGroupCondition.NOT_ENOUGH_RESOURCES;
        };
    }

    private static String defaultMessage(GangState gang, MemberCounts members, int minMember) {
        return switch (gang) {
            case EXPIRED -> "reservation deadline passed before " + minMember + " members were bound";
            case BACKED_OFF -> "backing off after a failed attempt";
            default -> members.unfinished() + "/" + minMember + " members exist; the gang does not fit";
        };
    }
}
