package dev.muster.core.preempt;

import dev.muster.core.gang.GangAdmission.PlanInput;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Plans a whole gang on the ledger <em>as if</em> chosen victims were gone, and chooses the fewest victims it needs.
 * Pure: it reads node entries (under the ledger owner's lock) and returns a plan; it changes nothing. Thread-safe.
 *
 * <p>The caller hands it the victim {@linkplain Unit units} it may take, in the order it prefers to take them, already
 * filtered to those its rules allow together (a prefix of an allowed list is allowed). Then:
 * <ol>
 *   <li>the gang is planned with every unit gone; if it still does not fit, nothing is chosen and the reason says so;</li>
 *   <li>the shortest prefix of the list with which the gang fits is found by bisection (more victims never free less
 *       room), so a decision costs O(log units) plans, not one per unit;</li>
 *   <li>reprieve: units none of whose nodes the plan uses are given back at once (checked by one plan), then the others
 *       one by one from the end of the list (the victims the caller least wanted to take) while the gang still fits —
 *       the reprieve of the unit that preempting most needed is tried last. A gang's surplus is never given back while
 *       the rest of that gang is taken (the gang would be left running below its minimum).</li>
 * </ol>
 * Every plan places the gang whole, with its topology constraint, exactly as admission would ({@link GangPlanner}).
 */
public final class PreemptionPlanner {
    /** At most this many one-by-one reprieve tries (each a plan) per decision: the cost stays bounded at any scale. */
    static final int MAX_REPRIEVE_TRIES = 32;

    private final GangPlanner planner;

    public PreemptionPlanner(GangPlanner planner) {
        this.planner = planner;
    }

    /** Which part of a running gang a unit is. */
    public enum Part {
        /** A single pod (no gang). */
        SINGLE,
        /** A whole gang: every member holding resources. */
        WHOLE,
        /** A gang's members above its minMember, the most recently started ones. */
        SURPLUS,
        /** The rest of a gang whose surplus is a unit of its own: taken only together with that surplus. */
        REST
    }

    /**
     * Victims that go together: a single pod, a whole gang, a gang's surplus, or the rest of a gang.
     *
     * @param since when the most recent of its pods started holding room (the core's clock)
     */
    public record Unit(GangKey gang, String queue, int priority, Part part, List<Victim> pods, long since) {
        public Unit {
            pods = List.copyOf(pods);
        }

        public Resources total() {
            Resources sum = Resources.ZERO;
            for (Victim v : pods) {
                sum = sum.plus(v.resources());
            }
            return sum;
        }

        /** This unit as the dry run shows it. */
        public PreemptionAdvice.VictimUnit view() {
            return new PreemptionAdvice.VictimUnit(gang, queue, priority, part == Part.SURPLUS, pods);
        }

        /** {@code ml/low-a (8 pods)}, {@code ml/low-b (2 surplus pods)}, {@code pod ml/web-1}. */
        public String describe() {
            if (gang == null) {
                return "pod " + pods.getFirst().pod().namespace() + "/" + pods.getFirst().pod().name();
            }
            String kind = switch (part) {
                case SURPLUS -> " surplus";
                case REST -> " remaining";
                default -> "";
            };
            return gang + " (" + pods.size() + kind + " pod" + (pods.size() == 1 ? "" : "s") + ")";
        }
    }

    /** The answer. */
    public sealed interface Result {
        /** The gang's plan on the victims' room, and the victims it takes (in the caller's order). */
        record Planned(GangPlanner.Result.Planned plan, List<Unit> victims) implements Result {
            public Planned {
                victims = List.copyOf(victims);
            }

            /** How many distinct nodes the victims free room on. */
            public int victimNodes() {
                Set<String> nodes = new HashSet<>();
                for (Unit u : victims) {
                    for (Victim v : u.pods()) {
                        nodes.add(v.node());
                    }
                }
                return nodes.size();
            }
        }

        /** The gang fits on free room without taking anyone's. */
        record FitsNow(GangPlanner.Result.Planned plan) implements Result {}

        /** Even with every unit gone the gang does not fit: {@code reason} is the planner's. */
        record Unfit(String reason) implements Result {}
    }

    /**
     * Plans {@code in} with the fewest of {@code units} gone. {@code own}: room on nodes that is the gang's own although
     * the ledger counts it taken (the room set aside for it as the gang next in line), per node.
     */
    public Result plan(Collection<NodeEntry> nodes, PlanInput in, Map<String, Resources> own, List<Unit> units) {
        GangPlanner.Result none = planWithout(nodes, in, own, units, 0);
        if (none instanceof GangPlanner.Result.Planned p) {
            return new Result.FitsNow(p);
        }
        GangPlanner.Result all = planWithout(nodes, in, own, units, units.size());
        if (!(all instanceof GangPlanner.Result.Planned)) {
            return new Result.Unfit(((GangPlanner.Result.Unfit) all).reason());
        }
        // the shortest prefix that fits: fits(hi) holds, fits(lo) does not
        int lo = 0;
        int hi = units.size();
        GangPlanner.Result.Planned best = (GangPlanner.Result.Planned) all;
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (planWithout(nodes, in, own, units, mid) instanceof GangPlanner.Result.Planned p) {
                hi = mid;
                best = p;
            } else {
                lo = mid;
            }
        }
        List<Unit> chosen = new ArrayList<>(units.subList(0, hi));
        best = reprieve(nodes, in, own, chosen, best);
        return new Result.Planned(best, chosen);
    }

    /** Gives back the chosen units the gang does not need (in place); returns the plan for what is left. */
    private GangPlanner.Result.Planned reprieve(Collection<NodeEntry> nodes, PlanInput in, Map<String, Resources> own,
                                                List<Unit> chosen, GangPlanner.Result.Planned plan) {
        // 1. units on nodes the plan does not use, all at once
        Set<String> used = new HashSet<>();
        for (var p : plan.placements()) {
            used.add(p.node());
        }
        List<Unit> idle = new ArrayList<>();
        for (Unit u : chosen) {
            boolean touches = false;
            for (Victim v : u.pods()) {
                touches |= used.contains(v.node());
            }
            if (!touches && mayReprieve(u, chosen, idle)) {
                idle.add(u);
            }
        }
        if (!idle.isEmpty()) {
            List<Unit> rest = new ArrayList<>(chosen);
            rest.removeAll(idle);
            if (planOn(nodes, in, own, rest) instanceof GangPlanner.Result.Planned p) {
                chosen.retainAll(rest);
                plan = p;
            }
        }
        // 2. one by one, the victims the caller least wanted to take first
        int tries = 0;
        for (int i = chosen.size() - 1; i >= 0 && tries < MAX_REPRIEVE_TRIES && chosen.size() > 1; i--) {
            Unit u = chosen.get(i);
            if (!mayReprieve(u, chosen, List.of())) {
                continue;
            }
            tries++;
            List<Unit> rest = new ArrayList<>(chosen);
            rest.remove(i);
            if (planOn(nodes, in, own, rest) instanceof GangPlanner.Result.Planned p) {
                chosen.remove(i);
                plan = p;
            }
        }
        return plan;
    }

    /** A gang's surplus stays a victim while the rest of that gang is one (and is not being reprieved with it). */
    private static boolean mayReprieve(Unit u, List<Unit> chosen, List<Unit> alsoReprieved) {
        if (u.part() != Part.SURPLUS) {
            return true;
        }
        for (Unit o : chosen) {
            if (o.part() == Part.REST && u.gang().equals(o.gang()) && !alsoReprieved.contains(o)) {
                return false;
            }
        }
        return true;
    }

    private GangPlanner.Result planWithout(Collection<NodeEntry> nodes, PlanInput in, Map<String, Resources> own, List<Unit> units,
                                           int prefix) {
        return planOn(nodes, in, own, units.subList(0, prefix));
    }

    /** The gang planned with {@code gone} units' room (and its own) free: the planner's spoken-for room is negative there. */
    private GangPlanner.Result planOn(Collection<NodeEntry> nodes, PlanInput in, Map<String, Resources> own, List<Unit> gone) {
        Map<String, Resources> freed = new HashMap<>(own);
        for (Unit u : gone) {
            for (Victim v : u.pods()) {
                freed.merge(v.node(), v.resources(), Resources::plus);
            }
        }
        Map<String, Resources> spokenFor = new HashMap<>(freed.size() * 2);
        freed.forEach((node, r) -> spokenFor.put(node, r.times(-1)));
        return planner.plan(nodes, in.members(), in.requirement(), spokenFor, in.topology());
    }
}
