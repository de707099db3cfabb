package dev.muster.core.preempt;

import dev.muster.core.gang.GangAdmission.PlanInput;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.resources.Resources;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * The most room evictions could ever give a gang: every node one of its members may use, as if empty. A node counts
 * when it takes placements, one of the members' own constraints admit it (node selector, required node affinity,
 * taints, the nodes kube-scheduler offered), and that member fits its allocatable. When no node counts, or the members
 * still to place need more than all of them hold together, no victim can help: {@link PreemptionPlanner} then reads
 * none (on a large cluster the candidates are every pod of lower priority, and the tick asks under the core's lock).
 * Made for one plan; confined to the thread that plans.
 */
final class RoomEvenEmpty {
    /** How an unfit reason begins when no node a member may use could hold one even empty. */
    static final String NO_NODE = "no node its members may use could hold one even empty; ";
    /** How an unfit reason begins when all the nodes its members may use, even empty, are too little together. */
    static final String TOO_LITTLE = "all the nodes its members may use, even empty, hold too little: ";

    private final List<GangPlanner.Member> kinds;
    private final boolean anyNode;
    private final Resources total;

    /** @param kinds one member of each kind the gang has (request, constraints, allowed nodes) */
    RoomEvenEmpty(Collection<NodeEntry> nodes, List<GangPlanner.Member> kinds) {
        this.kinds = kinds;
        boolean any = false;
        Resources.Builder sum = Resources.builder();
        for (NodeEntry e : nodes) {
            if (mayHold(e)) {
                any = true;
                sum.add(e.allocatable());
            }
        }
        this.anyNode = any;
        this.total = sum.build();
    }

    /** Whether {@code e} (null: not known) takes placements and a member may go there, and fits once it is empty. */
    boolean mayHold(NodeEntry e) {
        if (e == null || !e.takesPlacements()) {
            return false;
        }
        for (GangPlanner.Member m : kinds) {
            if (m.admits(e) && m.request().fitsIn(e.allocatable())) {
                return true;
            }
        }
        return false;
    }

    /** Whether any node could hold a member once empty. */
    boolean anyNode() {
        return anyNode;
    }

    /**
     * Why {@code in} cannot fit on all those nodes even empty, or null when it might: the members it must still place
     * need at least, on each resource, the sum of that many of their smallest requests. A lower bound: task minimums,
     * constraints and topology only ask more.
     */
    String tooLittleFor(PlanInput in) {
        List<GangPlanner.Member> members = in.members();
        int need = Math.min(members.size(), Math.max(0, in.requirement().minMember() - in.requirement().boundTotal()));
        if (need == 0) {
            return null;
        }
        int width = 0;
        for (GangPlanner.Member m : members) {
            width = Math.max(width, m.request().width());
        }
        Resources.Builder least = Resources.builder();
        long[] amounts = new long[members.size()];
        for (int i = 0; i < width; i++) {
            for (int j = 0; j < amounts.length; j++) {
                amounts[j] = members.get(j).request().get(i);
            }
            Arrays.sort(amounts);
            for (int j = 0; j < need; j++) {
                least.add(i, amounts[j]);
            }
        }
        Resources atLeast = least.build();
        return atLeast.fitsIn(total) ? null : TOO_LITTLE + "its " + need + " members to place need at least " + atLeast + ", they hold " + total;
    }
}
