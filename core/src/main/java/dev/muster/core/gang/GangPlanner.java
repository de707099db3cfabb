package dev.muster.core.gang;

import dev.muster.core.ledger.Domain;
import dev.muster.core.ledger.Ledger.Placement;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * All-or-nothing placement of a gang's unbound members on capacity that is free and not reserved by
 * anyone. Pure: it reads node entries (under the ledger owner's lock) and returns a plan; it changes
 * nothing. Stateless apart from its policy; thread-safe.
 *
 * <p>Members are split into <em>required</em> (enough of each task to reach {@code minTaskMember}, then
 * enough of any task to reach {@code minMember}, counting members already bound) and <em>optional</em>
 * (the rest). The plan succeeds only if every required member fits; optional members get a slot when
 * room remains. Members with the same task and request are placed as one group: the nodes that can hold
 * the request are put in a heap ordered by the scoring policy and filled one member at a time, so a
 * 1,000-member gang on 5,000 nodes costs one pass over the nodes plus 1,000 heap operations. A member goes only on
 * nodes its own node selector, required node affinity and tolerations admit ({@link Member#admits}), as kube-scheduler
 * would filter it; members with different constraints are placed as different groups.
 *
 * <p>With a topology constraint the same placement runs on the nodes of one domain at a time, chosen as
 * {@link TopologyPlacement} describes (required: one domain of the level or nothing; preferred: one domain at the
 * level or a wider one, else the fewest domains).
 */
public final class GangPlanner {
    private final ScoringPolicy policy;
    private final TopologyLevels levels;

    public GangPlanner(ScoringPolicy policy) {
        this(policy, TopologyLevels.NONE);
    }

    public GangPlanner(ScoringPolicy policy, TopologyLevels levels) {
        this.policy = policy;
        this.levels = levels;
    }

    /**
     * A gang's topology constraint ({@code request}) and the nodes its members already occupy ({@code anchors}: bound
     * members and members pinned by the caller), which a domain must contain.
     */
    public record Topology(TopologyRequest request, Set<String> anchors) {
        public Topology {
            anchors = anchors == null ? Set.of() : Set.copyOf(anchors);
        }
    }

    /**
     * An unbound member to place: only on nodes its {@code constraints} admit ({@link NodeEntry#admits}) and, when
     * {@code onlyOn} is not null, only on those nodes.
     */
    public record Member(String uid, String task, Resources request, NodeConstraints constraints, Set<String> onlyOn) {
        public Member {
            constraints = constraints == null ? NodeConstraints.NONE : constraints;
        }

        /** A member that may go on any node. */
        public Member(String uid, String task, Resources request) {
            this(uid, task, request, NodeConstraints.NONE, null);
        }

        /** The same member, placed only on {@code nodes}. */
        public Member onlyOn(Set<String> nodes) {
            return new Member(uid, task, request, constraints, nodes);
        }

        /** Whether this member may be placed on {@code e} as far as its constraints (and {@code onlyOn}) say. */
        public boolean admits(NodeEntry e) {
            return (onlyOn == null || onlyOn.contains(e.name())) && e.admits(constraints);
        }
    }

    /** What the gang needs, and what it already has. */
    public record Requirement(int minMember, Map<String, Integer> minTaskMember, int boundTotal, Map<String, Integer> boundByTask) {}

    /** The planner's answer. */
    public sealed interface Result {
        /** Slots to hold; {@code domain} is the topology domain they are confined to (a required constraint), or null. */
        record Planned(List<Placement> placements, Resources total, Domain domain) implements Result {
            public Planned(List<Placement> placements, Resources total) {
                this(placements, total, null);
            }
        }

        /**
         * Why not: {@code cause} is MEMBERS_MISSING, TASK_MEMBERS_MISSING or RESOURCES; {@code shortfall} is set
         * when a group of like members found too little room.
         */
        record Unfit(String reason, Refusal.Cause cause, Shortfall shortfall) implements Result {
            public Unfit {
                java.util.Objects.requireNonNull(cause, "cause");
            }

            Unfit(String reason, Refusal.Cause cause) {
                this(reason, cause, null);
            }

            Unfit(Shortfall s) {
                this(s.describe(), Refusal.Cause.RESOURCES, s);
            }
        }
    }

    /** {@code needed} members of one task and request, of which only {@code placed} found room. */
    public record Shortfall(String task, Resources request, int needed, int placed) {
        public String describe() {
            return "needs " + needed + "×(" + request + ")" + (task.isEmpty() ? "" : " for task " + task) + ", fits " + placed;
        }

        /** The same shortfall counting {@code more} members of this group that were placed before planning. */
        public Shortfall plus(int more) {
            return new Shortfall(task, request, needed + more, placed + more);
        }
    }

    public Result plan(Collection<NodeEntry> nodes, List<Member> members, Requirement req) {
        return plan(nodes, members, req, Map.of(), null);
    }

    /**
     * Like {@link #plan(Collection, List, Requirement)}, on nodes of which an amount (node → amount) is
     * already spoken for ({@code spokenFor}) — members pinned to a node by the caller, counted in {@code req} as bound.
     */
    public Result plan(Collection<NodeEntry> nodes, List<Member> members, Requirement req, Map<String, Resources> spokenFor) {
        return plan(nodes, members, req, spokenFor, null);
    }

    /**
     * Like {@link #plan(Collection, List, Requirement, Map)}, with a topology constraint ({@code topology}, or null
     * for anywhere): see {@link TopologyPlacement} for how domains are chosen.
     */
    public Result plan(Collection<NodeEntry> nodes, List<Member> members, Requirement req, Map<String, Resources> spokenFor,
                       Topology topology) {
        // 1. required vs optional members
        List<Member> required = new ArrayList<>();
        List<Member> rest = new ArrayList<>(members);
        for (Map.Entry<String, Integer> t : req.minTaskMember().entrySet()) {
            int need = Math.max(0, t.getValue() - req.boundByTask().getOrDefault(t.getKey(), 0));
            int taken = 0;
            for (var it = rest.iterator(); it.hasNext() && taken < need; ) {
                Member m = it.next();
                if (m.task().equals(t.getKey())) {
                    required.add(m);
                    it.remove();
                    taken++;
                }
            }
            if (taken < need) {
                return new Result.Unfit("task " + t.getKey() + " needs " + t.getValue() + " members, "
                        + (req.boundByTask().getOrDefault(t.getKey(), 0) + taken) + " exist", Refusal.Cause.TASK_MEMBERS_MISSING);
            }
        }
        int needTotal = Math.max(0, req.minMember() - req.boundTotal());
        while (required.size() < needTotal && !rest.isEmpty()) {
            required.add(rest.removeFirst());
        }
        if (required.size() < needTotal) {
            return new Result.Unfit("needs " + req.minMember() + " members, " + (req.boundTotal() + members.size()) + " exist", Refusal.Cause.MEMBERS_MISSING);
        }

        // 2. scratch copy of what each eligible node has free
        Scratch scratch = new Scratch(nodes, spokenFor, members.size());
        Map<GroupKey, Integer> requiredGroups = groups(required);
        Map<GroupKey, Integer> optionalGroups = groups(rest);

        // 3. place groups: required first (all must fit), then optional (as many as fit) — within a domain if asked
        if (topology != null && topology.request() != null) {
            List<NodeEntry> anchors = new ArrayList<>();
            if (!topology.anchors().isEmpty()) {
                for (NodeEntry e : nodes) {
                    if (topology.anchors().contains(e.name())) {
                        anchors.add(e);
                    }
                }
            }
            return new TopologyPlacement(this, levels, scratch, requiredGroups, optionalGroups, topology, anchors).plan();
        }
        Shortfall sf = placeGroups(scratch, scratch.all(), requiredGroups, optionalGroups);
        return sf != null ? new Result.Unfit(sf) : scratch.planned(null);
    }

    /**
     * Places the required groups (all must fit) and then the optional ones (as many as fit) on the nodes {@code idx}
     * of the scratch; returns null on success, else the first short group (the scratch then holds partial placements:
     * the caller {@linkplain Scratch#rollback rolls back}).
     */
    Shortfall placeGroups(Scratch s, int[] idx, Map<GroupKey, Integer> requiredGroups, Map<GroupKey, Integer> optionalGroups) {
        for (Map.Entry<GroupKey, Integer> g : requiredGroups.entrySet()) {
            int placed = place(g.getKey(), g.getValue(), s, idx);
            if (placed < g.getValue()) {
                GroupKey k = g.getKey();
                return new Shortfall(k.task(), k.request(), g.getValue(), placed);
            }
        }
        for (Map.Entry<GroupKey, Integer> g : optionalGroups.entrySet()) {
            place(g.getKey(), g.getValue(), s, idx);
        }
        return null;
    }

    /** Members placed alike: same task, request and node constraints. */
    record GroupKey(String task, Resources request, NodeConstraints constraints, Set<String> onlyOn) {
        boolean admits(NodeEntry e) {
            return (onlyOn == null || onlyOn.contains(e.name())) && e.admits(constraints);
        }

        boolean anywhere() {
            return onlyOn == null && constraints == NodeConstraints.NONE;
        }
    }

    static Map<GroupKey, Integer> groups(List<Member> members) {
        Map<GroupKey, Integer> groups = new LinkedHashMap<>();
        for (Member m : members) {
            groups.merge(new GroupKey(m.task(), m.request(), m.constraints(), m.onlyOn()), 1, Integer::sum);
        }
        return groups;
    }

    /** Places up to {@code count} copies of the group's request on the nodes {@code idx}; returns how many were placed. */
    private int place(GroupKey g, int count, Scratch s, int[] idx) {
        Resources request = g.request();
        Resources[] free = s.free;
        Resources[] inUse = s.inUse;
        double[] score = new double[free.length];
        PriorityQueue<Integer> heap = new PriorityQueue<>(Math.max(1, idx.length), (a, b) -> {
            int c = Double.compare(score[b], score[a]);
            return c != 0 ? c : Integer.compare(a, b);
        });
        boolean anywhere = g.anywhere();
        for (int i : idx) {
            if (request.fitsIn(free[i]) && (anywhere || g.admits(s.eligible.get(i)))) {
                score[i] = policy.score(s.eligible.get(i).allocatable(), inUse[i], request);
                heap.add(i);
            }
        }
        int placed = 0;
        while (placed < count && !heap.isEmpty()) {
            int i = heap.poll();
            s.placements.add(new Placement(s.eligible.get(i).name(), request, g.task()));
            free[i] = free[i].minus(request);
            inUse[i] = inUse[i].plus(request);
            placed++;
            if (request.fitsIn(free[i])) {
                score[i] = policy.score(s.eligible.get(i).allocatable(), inUse[i], request);
                heap.add(i);
            }
        }
        return placed;
    }

    /**
     * The planner's working copy for one plan: the eligible nodes (known, schedulable, not overcommitted), what each
     * has free and in use (minus/plus what is spoken for), and the placements made so far.
     */
    static final class Scratch {
        final List<NodeEntry> eligible;
        final Resources[] free;
        final Resources[] inUse;
        final List<Placement> placements;

        Scratch(Collection<NodeEntry> nodes, Map<String, Resources> spokenFor, int members) {
            eligible = new ArrayList<>(nodes.size());
            for (NodeEntry e : nodes) {
                if (e.takesPlacements()) {
                    eligible.add(e);
                }
            }
            free = new Resources[eligible.size()];
            inUse = new Resources[eligible.size()];
            for (int i = 0; i < free.length; i++) {
                NodeEntry e = eligible.get(i);
                Resources t = spokenFor.get(e.name());
                free[i] = t == null ? e.free() : e.free().minus(t);
                inUse[i] = t == null ? e.inUse() : e.inUse().plus(t);
            }
            placements = new ArrayList<>(members);
        }

        int[] all() {
            int[] idx = new int[free.length];
            for (int i = 0; i < idx.length; i++) {
                idx[i] = i;
            }
            return idx;
        }

        /** Undoes every placement after the first {@code keep}, giving their room back. */
        void rollback(int keep) {
            Map<String, Integer> index = null;
            while (placements.size() > keep) {
                Placement p = placements.removeLast();
                if (index == null) {
                    index = new java.util.HashMap<>();
                    for (int i = 0; i < eligible.size(); i++) {
                        index.put(eligible.get(i).name(), i);
                    }
                }
                int i = index.get(p.node());
                free[i] = free[i].plus(p.request());
                inUse[i] = inUse[i].minus(p.request());
            }
        }

        Result.Planned planned(Domain domain) {
            Resources total = Resources.ZERO;
            for (Placement p : placements) {
                total = total.plus(p.request());
            }
            return new Result.Planned(List.copyOf(placements), total, domain);
        }
    }
}
