package dev.muster.core.status;

import dev.muster.core.stream.GangState;
import java.util.ArrayList;
import java.util.List;

/**
 * The PodGroup condition rule, a pure function of the current facts. Conditions come out without
 * {@code lastTransitionTime}; {@link StatusFolding} stamps them, keeping the previous time while type and
 * status stay the same.
 *
 * <ul>
 *   <li>{@code Scheduled=True} (reason {@code GangBound}) when the extender bound the gang, or it runs or
 *       completed.</li>
 *   <li>{@code Unschedulable=True} while the extender reports the gang UNSCHEDULABLE, EXPIRED or
 *       BACKED_OFF. Reason {@code NotEnoughTasks} when fewer than minMember unfinished members exist, else
 *       {@code NotEnoughResources}; the message is the extender's reason, as {@code kubectl describe}
 *       shows it.</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class PodGroupConditions {
    private PodGroupConditions() {}

    public static List<PodGroupCondition> desired(PodGroupPhase phase, int minMember, GangState gang, String reason,
                                                  MemberCounts members) {
        List<PodGroupCondition> out = new ArrayList<>(2);
        if (gang == GangState.BOUND || phase == PodGroupPhase.RUNNING || phase == PodGroupPhase.COMPLETED) {
            out.add(new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE, PodGroupCondition.GANG_BOUND,
                    "at least " + Math.max(1, minMember) + " members bound together", null));
        }
        if (gang == GangState.UNSCHEDULABLE || gang == GangState.EXPIRED || gang == GangState.BACKED_OFF) {
            String why = members.unfinished() < minMember ? PodGroupCondition.NOT_ENOUGH_TASKS : PodGroupCondition.NOT_ENOUGH_RESOURCES;
            out.add(new PodGroupCondition(PodGroupCondition.UNSCHEDULABLE, PodGroupCondition.TRUE, why,
                    reason == null || reason.isEmpty() ? defaultMessage(gang, members, minMember) : reason, null));
        }
        return out;
    }

    private static String defaultMessage(GangState gang, MemberCounts members, int minMember) {
        return switch (gang) {
            case EXPIRED -> "reservation deadline passed before " + minMember + " members were bound";
            case BACKED_OFF -> "backing off after a failed attempt";
            default -> members.unfinished() + "/" + minMember + " members exist; the gang does not fit";
        };
    }
}
