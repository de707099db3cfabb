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
 *   <li>the shortest prefix of the list with which the gang fits is found by doubling and then bisection (more victims
 *       never free less room), so a decision costs O(log victims) plans, not one per unit, and the plans of short
 *       prefixes read few nodes; if even the whole list does not make room, nothing is chosen and the reason says so;</li>
 *   <li>reprieve: units none of whose nodes the plan uses are given back at once (checked by one plan), then the others
 *       one by one from the end of the list (the victims the caller least wanted to take) while the gang still fits —
 *       the reprieve of the unit that preempting most needed is tried last. A gang's surplus is never given back while
 *       the rest of that gang is taken (the gang would be left running below its minimum).</li>
 * </ol>
 * Every plan places the gang whole, with its topology constraint, exactly as admission would ({@link GangPlanner}):
 * each member only on nodes its own node selector, required node affinity and tolerations admit, and — for a member
 * with constraints only kube-scheduler judges — only on nodes kube-scheduler offered it. Victims that free room only on
 * nodes no member may use are never chosen.
 */
public final class PreemptionPlanner {
    /** At most this many one-by-one reprieve tries (each a plan) per decision: the cost stays bounded at any scale. */
    static final int MAX_REPRIEVE_TRIES = 32;

    private final GangPlanner planner;

    public PreemptionPlanner(GangPlanner planner) {
        this.planner = planner;
    }

    /**
     * The units the caller may take, in the order it prefers to take them, read as far as needed: every prefix is allowed
     * together.
     */
    public interface Units {
        /** Reads on until {@code k} units are there; whether there are. */
        boolean reach(int k);

        /** How many units were read (all there are once {@link #reach} said false). */
        int available();

        /** The first {@code k} units (fewer when there are not that many). */
        List<Unit> prefix(int k);

        /** A list already read. */
        static Units of(List<Unit> units) {
            return new Units() {
                @Override
                public boolean reach(int k) {
                    return units.size() >= k;
                }

                @Override
                public int available() {
                    return units.size();
                }

                @Override
                public List<Unit> prefix(int k) {
                    return units.subList(0, Math.min(k, units.size()));
                }
            };
        }
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
    public Result plan(Collection<NodeEntry> nodes, PlanInput in, Map<String, Resources> own, Units units) {
        Map<String, NodeEntry> byName = new HashMap<>();
        for (NodeEntry e : nodes) {
            byName.put(e.name(), e);
        }
        return plan(nodes, byName::get, in, own, units);
    }

    /**
     * As {@link #plan(Collection, PlanInput, Map, List)}, with {@code lookup} finding a node's entry by name. Each plan
     * runs only on the nodes that can matter: those where a member fits on free room (or the gang's own), those the gang
     * already occupies (its topology anchors), and those the victims of that plan free room on — at 5,000 full nodes a
     * plan reads tens of nodes, not thousands.
     */
    public Result plan(Collection<NodeEntry> nodes, java.util.function.Function<String, NodeEntry> lookup, PlanInput in,
                       Map<String, Resources> own, Units units) {
        List<GangPlanner.Member> kinds = kinds(in.members());
        Set<String> anchors = in.topology() == null ? Set.of() : in.topology().anchors();
        Map<String, NodeEntry> base = new java.util.LinkedHashMap<>();
        for (NodeEntry e : nodes) {
            if (!e.takesPlacements()) {
                continue;
            }
            Resources free = own.containsKey(e.name()) ? e.free().plus(own.get(e.name())) : e.free();
            boolean room = anchors.contains(e.name());
            for (GangPlanner.Member m : kinds) {
                room |= m.request().fitsIn(free) && m.admits(e);
            }
            if (room) {
                base.put(e.name(), e);
            }
        }
        // room is freed only where a member may go: a unit all of whose pods are on nodes no member's own constraints
        // admit, or too small for any member even empty, is not worth evicting
        RoomEvenEmpty most = new RoomEvenEmpty(nodes, kinds);
        if (!most.anyNode()) {
            Result r = plan(new Nodes(base, lookup), in, own, Units.of(List.of()));
            return r instanceof Result.Unfit u ? new Result.Unfit(RoomEvenEmpty.NO_NODE + u.reason()) : r;
        }
        String tooLittle = most.tooLittleFor(in);
        if (tooLittle != null) {
            return new Result.Unfit(tooLittle);
        }
        return plan(new Nodes(base, lookup), in, own, new UsableUnits(units, node -> most.mayHold(lookup.apply(node))));
    }

    /** One member of each kind (task aside): request, constraints and allowed nodes. */
    private static List<GangPlanner.Member> kinds(List<GangPlanner.Member> members) {
        Map<List<Object>, GangPlanner.Member> out = new java.util.LinkedHashMap<>();
        for (GangPlanner.Member m : members) {
            out.putIfAbsent(java.util.Arrays.asList(m.request(), m.constraints(), m.onlyOn()), m);
        }
        return new ArrayList<>(out.values());
    }

    /**
     * The caller's units without those that free room only on nodes no member may use. A gang's surplus is kept even
     * then (the rest of that gang may be needed, and is taken only with its surplus; the reprieve gives an unused
     * surplus back). Dropping a unit keeps every prefix allowed: fewer victims never break a budget or a share.
     */
    private static final class UsableUnits implements Units {
        private final Units all;
        private final java.util.function.Predicate<String> usableNode;
        private final List<Unit> kept = new ArrayList<>();
        private int read; // how many of all's units were looked at

        UsableUnits(Units all, java.util.function.Predicate<String> usableNode) {
            this.all = all;
            this.usableNode = usableNode;
        }

        @Override
        public boolean reach(int k) {
            while (kept.size() < k) {
                if (!all.reach(read + 1)) {
                    return false;
                }
                Unit u = all.prefix(read + 1).get(read);
                read++;
                if (u.part() == Part.SURPLUS || frees(u)) {
                    kept.add(u);
                }
            }
            return true;
        }

        private boolean frees(Unit u) {
            for (Victim v : u.pods()) {
                if (usableNode.test(v.node())) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public int available() {
            return kept.size();
        }

        @Override
        public List<Unit> prefix(int k) {
            reach(k);
            return kept.subList(0, Math.min(k, kept.size()));
        }
    }

    /** The nodes a plan may use: the base ones, plus those victims free room on. */
    private record Nodes(Map<String, NodeEntry> base, java.util.function.Function<String, NodeEntry> lookup) {
        Collection<NodeEntry> with(List<Unit> gone) {
            if (gone.isEmpty()) {
                return base.values();
            }
            Map<String, NodeEntry> out = new java.util.LinkedHashMap<>(base);
            for (Unit u : gone) {
                for (Victim v : u.pods()) {
                    if (!out.containsKey(v.node())) {
                        NodeEntry e = lookup.apply(v.node());
                        if (e != null) {
                            out.put(v.node(), e);
                        }
                    }
                }
            }
            return out.values();
        }
    }

    private Result plan(Nodes nodes, PlanInput in, Map<String, Resources> own, Units units) {
        GangPlanner.Result none = planOn(nodes, in, own, List.of());
        if (none instanceof GangPlanner.Result.Planned p) {
            return new Result.FitsNow(p);
        }
        // the shortest prefix that fits: doubling from one unit (most decisions need a few, and short prefixes plan on few
        // nodes and read few members), then bisection between the last prefix that did not fit and the first that did
        int lo = 0;
        int hi = 0;
        GangPlanner.Result.Planned best = null;
        GangPlanner.Result last = none;
        for (int k = 1; ; k *= 2) {
            boolean enough = units.reach(k);
            int have = enough ? k : units.available();
            if (have <= lo) {
                break; // nothing more to take
            }
            last = planOn(nodes, in, own, units.prefix(have));
            if (last instanceof GangPlanner.Result.Planned p) {
                best = p;
                hi = have;
                break;
            }
            lo = have;
            if (!enough) {
                break;
            }
        }
        if (best == null) {
            return new Result.Unfit(((GangPlanner.Result.Unfit) last).reason());
        }
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (planOn(nodes, in, own, units.prefix(mid)) instanceof GangPlanner.Result.Planned p) {
                hi = mid;
                best = p;
            } else {
                lo = mid;
            }
        }
        List<Unit> chosen = new ArrayList<>(units.prefix(hi));
        best = reprieve(nodes, in, own, chosen, best);
        return new Result.Planned(best, chosen);
    }

    /** Gives back the chosen units the gang does not need (in place); returns the plan for what is left. */
    private GangPlanner.Result.Planned reprieve(Nodes nodes, PlanInput in, Map<String, Resources> own,
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

    /** The gang planned with {@code gone} units' room (and its own) free: the planner's spoken-for room is negative there. */
    private GangPlanner.Result planOn(Nodes nodes, PlanInput in, Map<String, Resources> own, List<Unit> gone) {
        Map<String, Resources> freed = new HashMap<>(own);
        for (Unit u : gone) {
            for (Victim v : u.pods()) {
                freed.merge(v.node(), v.resources(), Resources::plus);
            }
        }
        Map<String, Resources> spokenFor = new HashMap<>(freed.size() * 2);
        freed.forEach((node, r) -> spokenFor.put(node, r.times(-1)));
        return planner.plan(nodes.with(gone), in.members(), in.requirement(), spokenFor, in.topology());
    }
}
