package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger.Placement;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.model.Refusal;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

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
 * 1,000-member gang on 5,000 nodes costs one pass over the nodes plus 1,000 heap operations.
 */
public final class GangPlanner {
    private final ScoringPolicy policy;

    public GangPlanner(ScoringPolicy policy) {
        this.policy = policy;
    }

    /** An unbound member to place. */
    public record Member(String uid, String task, Resources request) {}

    /** What the gang needs, and what it already has. */
    public record Requirement(int minMember, Map<String, Integer> minTaskMember, int boundTotal, Map<String, Integer> boundByTask) {}

    /** The planner's answer. */
    public sealed interface Result {
        record Planned(List<Placement> placements, Resources total) implements Result {}

        /**
         * Why not: {@code cause} is MEMBERS_MISSING, TASK_MEMBERS_MISSING or RESOURCES; {@code shortfall} is set
         * when a group of like members found too little room.
         */
        record Unfit(String reason, Refusal.Cause cause, Shortfall shortfall) implements Result {
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
        return plan(nodes, members, req, Map.of());
    }

    /**
     * Like {@link #plan(Collection, List, Requirement)}, on nodes of which an amount (node → amount) is
     * already spoken for ({@code spokenFor}) — members pinned to a node by the caller, counted in {@code req} as bound.
     */
    public Result plan(Collection<NodeEntry> nodes, List<Member> members, Requirement req, Map<String, Resources> spokenFor) {
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
        List<NodeEntry> eligible = new ArrayList<>(nodes.size());
        for (NodeEntry e : nodes) {
            if (e.known() && e.schedulable() && !e.overcommitted()) {
                eligible.add(e);
            }
        }
        Resources[] free = new Resources[eligible.size()];
        Resources[] inUse = new Resources[eligible.size()];
        for (int i = 0; i < free.length; i++) {
            NodeEntry e = eligible.get(i);
            Resources t = spokenFor.get(e.name());
            free[i] = t == null ? e.free() : e.free().minus(t);
            inUse[i] = t == null ? e.inUse() : e.inUse().plus(t);
        }

        // 3. place groups: required first (all must fit), then optional (as many as fit)
        List<Placement> placements = new ArrayList<>(members.size());
        Resources total = Resources.ZERO;
        for (Map.Entry<GroupKey, Integer> g : groups(required).entrySet()) {
            int placed = place(g.getKey(), g.getValue(), eligible, free, inUse, placements);
            if (placed < g.getValue()) {
                GroupKey k = g.getKey();
                return new Result.Unfit(new Shortfall(k.task(), k.request(), g.getValue(), placed));
            }
        }
        for (Map.Entry<GroupKey, Integer> g : groups(rest).entrySet()) {
            place(g.getKey(), g.getValue(), eligible, free, inUse, placements);
        }
        for (Placement p : placements) {
            total = total.plus(p.request());
        }
        return new Result.Planned(placements, total);
    }

    private record GroupKey(String task, Resources request) {}

    private static Map<GroupKey, Integer> groups(List<Member> members) {
        Map<GroupKey, Integer> groups = new LinkedHashMap<>();
        for (Member m : members) {
            groups.merge(new GroupKey(m.task(), m.request()), 1, Integer::sum);
        }
        return groups;
    }

    /** Places up to {@code count} copies of the group's request; returns how many were placed. */
    private int place(GroupKey g, int count, List<NodeEntry> eligible, Resources[] free, Resources[] inUse,
                      List<Placement> out) {
        Resources request = g.request();
        double[] score = new double[free.length];
        PriorityQueue<Integer> heap = new PriorityQueue<>(Math.max(1, free.length), (a, b) -> {
            int c = Double.compare(score[b], score[a]);
            return c != 0 ? c : Integer.compare(a, b);
        });
        for (int i = 0; i < free.length; i++) {
            if (request.fitsIn(free[i])) {
                score[i] = policy.score(eligible.get(i).allocatable(), inUse[i], request);
                heap.add(i);
            }
        }
        int placed = 0;
        while (placed < count && !heap.isEmpty()) {
            int i = heap.poll();
            out.add(new Placement(eligible.get(i).name(), request, g.task()));
            free[i] = free[i].minus(request);
            inUse[i] = inUse[i].plus(request);
            placed++;
            if (request.fitsIn(free[i])) {
                score[i] = policy.score(eligible.get(i).allocatable(), inUse[i], request);
                heap.add(i);
            }
        }
        return placed;
    }

}
