package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.GangState;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.Pod;
import dev.muster.core.model.Refusal;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Admits gangs: plans every member the gang still needs with the {@link GangPlanner}, checks the queue, and
 * reserves the whole plan in the ledger — or says why not, as a {@link Refusal}. Also grows or trims a held
 * reservation when a member arrives that no slot was planned for. Confined to the core's lock ({@link Books}).
 */
public final class GangAdmission {
    /** What a refusal means for the gang's members at filter. */
    public enum Outlook {
        /**
         * May pass at any moment (backing off, not fitting now, members or PodGroup missing): members pass filter
         * and their binds are held ({@link HeldBinds}).
         */
        HOLD,
        /**
         * The queue is full for now: members are refused at filter (holding them would take room in
         * kube-scheduler's view that other queues can use; an extender-only refusal is retried from
         * kube-scheduler's backoff queue anyway).
         */
        REFUSE,
        /** A missing or closed queue, or a gang larger than its queue's capability: unresolvable as things stand. */
        NEVER;

        public static Outlook of(Refusal why) {
            return switch (why.cause()) {
                case QUEUE_FULL -> REFUSE;
                case QUEUE_MISSING, QUEUE_CLOSED, QUEUE_CAPABILITY -> NEVER;
                default -> HOLD;
            };
        }
    }

    private final Books books;
    private final Ledger ledger;
    private final GangPlanner planner;
    private final Duration defaultDeadline;
    private final WaitingLine line;

    public GangAdmission(Books books, GangPlanner planner, Duration defaultDeadline, WaitingLine line) {
        this.books = books;
        this.ledger = books.ledger();
        this.planner = planner;
        this.defaultDeadline = defaultDeadline;
        this.line = line;
    }

    /** Whether the gang is refused only for want of room: then, if it is next in line, room is set aside for it. */
    public static boolean waitsForRoom(Refusal why) {
        return why.cause() == Refusal.Cause.RESOURCES || why.cause() == Refusal.Cause.NODES_OVERCOMMITTED;
    }

    /** Why a gang is backing off now, or null when it is not. */
    public static Refusal backoff(Gang g, long now) {
        if (!g.backingOff(now)) {
            return null;
        }
        long seconds = Math.max(1, Duration.ofNanos(g.notBeforeNanos() - now).toSeconds());
        return Refusal.of(Refusal.Cause.BACKING_OFF, "gang " + g.key() + ": backing off for " + seconds + "s after: " + g.reason());
    }

    /**
     * Plans and reserves the gang; returns null on success (the gang is RESERVED), else the refusal (the gang's
     * state says it too, except while backing off). Members whose binds are held are pinned to the nodes
     * kube-scheduler chose for them; members that do not exist yet get provisional slots sized like the members
     * that do, so the gang's first members pass filter at once and wait at the barrier instead of being refused
     * until the last one exists.
     */
    public Refusal reserve(Gang g, long now) {
        if (g.spec().isUnresolved()) {
            return refuse(g, Refusal.of(Refusal.Cause.PODGROUP_UNRESOLVED, "gang " + g.key() + ": " + g.spec().unresolved()));
        }
        Refusal backingOff = backoff(g, now);
        if (backingOff != null) {
            return backingOff;
        }
        // a gang its queue cannot take now is refused before anything else: a turn or a want of room would hold its
        // members' binds (HOLD), which take room in kube-scheduler's view that other queues and single pods could use
        if (g.memberCount() > 0 && books.queueVerdict(g.queue(), line.needOf(g), g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
            return refuse(g, refused.why().prefixed("gang " + g.key() + ": "));
        }
        Refusal turn = line.turnOf(g);
        if (turn != null) {
            return refuse(g, turn);
        }
        // the gang next in line plans on the room set aside for it too, and keeps what it can use if it still does not fit
        boolean next = g.key().equals(line.next());
        if (next) {
            ledger.releaseSetAside();
        }
        Refusal why = plan(g, now, true);
        if (why == null) {
            line.admitted(g);
        }
        if (why != null && waitsForRoom(why) && (next || line.shouldBeNext(g))) {
            line.next(g);
            ledger.setAside(g.key(), roomToSetAside(g)); // replaces the set-aside of the gang it overtook
        }
        return why;
    }

    /** {@code pinHeld}: pin held members to kube-scheduler's nodes (false: plan them like the others). */
    private Refusal plan(Gang g, long now, boolean pinHeld) {
        String prefix = "gang " + g.key() + ": ";
        if (g.memberCount() == 0) {
            return refuse(g, Refusal.of(Refusal.Cause.MEMBERS_MISSING, prefix + "0/" + g.minMember() + " pods exist"));
        }
        Refusal minimum = minResourcesRefusal(g);
        if (minimum != null) {
            return refuse(g, minimum.prefixed(prefix));
        }
        // 1. members whose binds are held: kube-scheduler already chose their nodes
        Map<String, Resources> taken = new HashMap<>();
        List<Ledger.Placement> pinned = new ArrayList<>();
        Set<String> pinnedUids = new HashSet<>();
        for (PodBinds.Bind h : pinHeld ? books.binds().of(g.key(), PodBinds.Stage.HELD) : List.<PodBinds.Bind>of()) {
            Pod m = books.pod(h.pod().uid());
            NodeEntry e = ledger.node(h.node());
            if (m == null || ledger.pod(m.uid()) != null || e == null
                    || !e.accepts(taken.getOrDefault(e.name(), Resources.ZERO).plus(m.request()))) {
                continue; // not pinned: it is offered a slot (or fails) once the gang is reserved
            }
            taken.merge(e.name(), m.request(), Resources::plus);
            pinned.add(new Ledger.Placement(e.name(), m.request(), m.task()));
            pinnedUids.add(m.uid());
        }
        // 2. the other members, and stand-ins for those that do not exist yet
        PlanInput in = inputOf(g, pinnedUids, taken.keySet());
        int missing = Math.max(0, g.minMember() - g.memberCount());
        // room kube-scheduler nominated for pods of lower priority than the gang's is the gang's to plan on, as in kube-scheduler
        ledger.holds().yieldingTo(g.priority()).forEach((node, room) -> taken.merge(node, Resources.ZERO.minus(room), Resources::plus));
        GangPlanner.Result result = planner.plan(ledger.nodes(), in.members(), in.requirement(), taken, in.topology());
        if (!pinned.isEmpty() && result instanceof GangPlanner.Result.Unfit u && u.cause() == Refusal.Cause.TOPOLOGY) {
            return plan(g, now, false); // kube-scheduler's nodes for held members straddle domains: plan them like the others
        }
        String exist = missing > 0 ? " (" + g.memberCount() + "/" + g.minMember() + " pods exist)" : "";
        if (result instanceof GangPlanner.Result.Unfit unfit) {
            return refuse(g, unfitRefusal(unfit, pinned).prefixed(prefix).suffixed(exist));
        }
        GangPlanner.Result.Planned plan = (GangPlanner.Result.Planned) result;
        Resources total = plan.total();
        for (Ledger.Placement pp : pinned) {
            total = total.plus(pp.request());
        }
        if (books.queueVerdict(g.queue(), total, g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
            return refuse(g, refused.why().prefixed(prefix));
        }
        Duration deadline = g.spec().deadline() != null ? g.spec().deadline() : defaultDeadline;
        List<Ledger.Placement> all = new ArrayList<>(pinned);
        all.addAll(plan.placements());
        ledger.reserve(g.key(), g.queue(), now + deadline.toNanos(), all, plan.domain());
        giveWay(all, g.priority());
        books.state(g, GangState.ADMITTED, Refusal.NONE);
        String held = all.size() + " slots held for " + deadline.toSeconds() + "s" + exist;
        String tasks = g.tasksShort();
        // reserved, but its barrier cannot open before a task's pods exist: say so (a PodGroup condition shows it)
        books.state(g, GangState.RESERVED, tasks.isEmpty() ? Refusal.note(held)
                : Refusal.of(Refusal.Cause.TASK_MEMBERS_MISSING, prefix + "waiting for pods of " + tasks + "; " + held));
        return null;
    }


    /** Nominations of lower priority than {@code priority} on the nodes of {@code placements} give way where they no longer fit. */
    private void giveWay(List<Ledger.Placement> placements, int priority) {
        Set<String> nodes = new HashSet<>();
        for (Ledger.Placement p : placements) {
            if (nodes.add(p.node())) {
                ledger.holds().giveWay(p.node(), priority);
            }
        }
    }

    /** What planning a gang takes: its members to place (stand-ins for missing ones), what it needs, its topology. */
    public record PlanInput(List<GangPlanner.Member> members, GangPlanner.Requirement requirement, GangPlanner.Topology topology) {}

    /** The gang's plan input with no member pinned: every member not holding resources is placed by the planner. */
    public PlanInput inputOf(Gang g) {
        return inputOf(g, Set.of(), Set.of());
    }

    /**
     * The gang's plan input: members holding resources or {@code pinnedUids} (on {@code pinnedNodes}) count as placed and,
     * like bound ones, anchor a topology domain; the others, and stand-ins for members that do not exist yet, are placed.
     */
    private PlanInput inputOf(Gang g, Set<String> pinnedUids, Set<String> pinnedNodes) {
        List<GangPlanner.Member> unbound = new ArrayList<>();
        Map<String, Integer> placedByTask = new HashMap<>();
        Set<String> anchors = new HashSet<>(pinnedNodes);
        for (Pod m : g.members()) {
            if (ledger.pod(m.uid()) != null || pinnedUids.contains(m.uid())) {
                placedByTask.merge(m.task(), 1, Integer::sum);
                if (ledger.pod(m.uid()) != null) {
                    anchors.add(ledger.pod(m.uid()).node());
                }
            } else {
                unbound.add(memberOf(m));
            }
        }
        unbound.addAll(provisionalMembers(g, Math.max(0, g.minMember() - g.memberCount())));
        GangPlanner.Topology topology = g.spec().topology() == null ? null : new GangPlanner.Topology(g.spec().topology(), anchors);
        return new PlanInput(unbound, new GangPlanner.Requirement(g.minMember(), g.spec().minTaskMember(), g.bound() + pinnedUids.size(),
                placedByTask), topology);
    }

    /**
     * The gang's plan input for a preemption: as {@link #inputOf(Gang)}, with each member that has constraints Muster does
     * not judge itself placed only on the nodes kube-scheduler last offered it ({@link OfferedNodes}; none when it
     * offered none).
     */
    public PlanInput preemptionInputOf(Gang g) {
        PlanInput in = inputOf(g);
        List<GangPlanner.Member> members = new ArrayList<>(in.members().size());
        for (GangPlanner.Member m : in.members()) {
            members.add(m.constraints().hasUndecided() ? m.onlyOn(books.offered().of(m.uid())) : m);
        }
        return new PlanInput(members, in.requirement(), in.topology());
    }

    /** A member as the planner places it: its request and its own node constraints. */
    static GangPlanner.Member memberOf(Pod m) {
        return new GangPlanner.Member(m.uid(), m.task(), m.request(), m.constraints(), null);
    }

    /** The planner gangs are admitted with. */
    public GangPlanner planner() {
        return planner;
    }

    /**
     * Reserves {@code plan} for {@code g}, which preempts: its slots hold room its victims still use while they terminate
     * ({@link Ledger#markLeaving}), until {@code deadlineNanos}; the gang is RESERVED saying {@code note}.
     */
    public void reservePreempting(Gang g, GangPlanner.Result.Planned plan, long deadlineNanos, String note, int priority) {
        if (g.key().equals(line.next())) {
            line.next(null);
            ledger.releaseSetAside();
        }
        ledger.reserve(g.key(), g.queue(), deadlineNanos, plan.placements(), plan.domain());
        giveWay(plan.placements(), priority);
        line.admitted(g);
        books.state(g, GangState.ADMITTED, Refusal.NONE);
        books.state(g, GangState.RESERVED, Refusal.note(note));
    }

    /**
     * Volcano's enqueue check: a PodGroup's {@code minResources} must fit in what its queue may still take and in
     * the cluster's free, unreserved capacity before any member is planned; null when it does (or is unset).
     */
    private Refusal minResourcesRefusal(Gang g) {
        Resources min = g.spec().minResources();
        if (min.isZero()) {
            return null;
        }
        if (books.queueVerdict(g.queue(), min, g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
            return Refusal.of(refused.why().cause(), "minResources " + min + ": " + refused.reason());
        }
        Resources free = ledger.freeRoom();
        if (!min.fitsIn(free)) {
            return Refusal.of(Refusal.Cause.RESOURCES, "minResources " + min + " exceed the cluster's free capacity (short "
                    + min.shortageAgainst(free) + ")");
        }
        return null;
    }

    private Refusal refuse(Gang g, Refusal refusal) {
        Refusal why = refusal.suffixed(line.noteFor(g));
        books.state(g, why.cause() == Refusal.Cause.MEMBERS_MISSING && g.memberCount() == 0 ? GangState.WAITING : GangState.UNSCHEDULABLE, why);
        return why;
    }

    /**
     * The planner's answer, told for the whole gang: a shortfall counts the pinned members of that group too,
     * and names the overcommitted nodes that would otherwise have taken members.
     */
    private Refusal unfitRefusal(GangPlanner.Result.Unfit unfit, List<Ledger.Placement> pinned) {
        GangPlanner.Shortfall sf = unfit.shortfall();
        if (sf == null) {
            return Refusal.of(unfit.cause(), unfit.reason());
        }
        int pinnedAlike = 0;
        for (Ledger.Placement pp : pinned) {
            if (pp.task().equals(sf.task()) && pp.request().equals(sf.request())) {
                pinnedAlike++;
            }
        }
        String text = sf.plus(pinnedAlike).describe();
        int overcommitted = 0;
        for (NodeEntry e : ledger.nodes()) {
            if (e.known() && e.schedulable() && e.overcommitted() && sf.request().fitsIn(e.allocatable())) {
                overcommitted++;
            }
        }
        if (overcommitted > 0) {
            return Refusal.of(Refusal.Cause.NODES_OVERCOMMITTED, text + "; " + overcommitted + " node" + (overcommitted == 1 ? " that" : "s that")
                    + " could take members " + (overcommitted == 1 ? "is" : "are") + " overcommitted (pods use more than allocatable)");
        }
        return Refusal.of(Refusal.Cause.RESOURCES, text);
    }

    /**
     * The members the gang still lacks for {@code minMember}, at most that many: unbound members that exist, then
     * stand-ins ({@link #provisionalMembers}) for those that do not exist yet.
     */
    static List<GangPlanner.Member> stillNeeded(Ledger ledger, Gang g) {
        int needed = Math.max(0, g.minMember() - g.bound());
        List<GangPlanner.Member> out = new ArrayList<>();
        for (Pod m : g.members()) {
            if (out.size() >= needed) {
                break;
            }
            if (ledger.pod(m.uid()) == null) {
                out.add(memberOf(m));
            }
        }
        for (GangPlanner.Member m : provisionalMembers(g, Math.max(0, g.minMember() - g.memberCount()))) {
            if (out.size() >= needed) {
                break;
            }
            out.add(m);
        }
        return out;
    }

    /**
     * Room to set aside for the gang next in line, which does not fit yet: places for as many of the members it
     * still needs as fit on free room now (none is required).
     */
    List<Ledger.Placement> roomToSetAside(Gang g) {
        GangPlanner.Result r = planner.plan(ledger.nodes(), stillNeeded(ledger, g), new GangPlanner.Requirement(0, Map.of(), 0, Map.of()));
        return r instanceof GangPlanner.Result.Planned p ? p.placements() : List.of();
    }

    /**
     * Stand-ins for {@code missing} members that do not exist yet: first what each task still lacks for its
     * {@code minTaskMember} (sized like a member of that task), then any task, sized like the most common
     * member request. A member that arrives with another request gets its own slot in exchange
     * ({@link #addSlotFor}).
     */
    private static List<GangPlanner.Member> provisionalMembers(Gang g, int missing) {
        List<GangPlanner.Member> out = new ArrayList<>();
        if (missing == 0) {
            return out;
        }
        Map<String, Integer> byTask = new HashMap<>();
        Map<String, Resources> requestOfTask = new HashMap<>();
        Map<String, NodeConstraints> constraintsOfTask = new HashMap<>();
        Map<Resources, Integer> requests = new HashMap<>();
        NodeConstraints anyConstraints = NodeConstraints.NONE;
        for (Pod m : g.members()) {
            byTask.merge(m.task(), 1, Integer::sum);
            requestOfTask.putIfAbsent(m.task(), m.request());
            constraintsOfTask.putIfAbsent(m.task(), m.constraints());
            requests.merge(m.request(), 1, Integer::sum);
            if (anyConstraints == NodeConstraints.NONE) {
                anyConstraints = m.constraints();
            }
        }
        Resources common = Resources.ZERO;
        int best = 0;
        for (Map.Entry<Resources, Integer> e : requests.entrySet()) {
            if (e.getValue() > best) {
                common = e.getKey();
                best = e.getValue();
            }
        }
        for (Map.Entry<String, Integer> t : g.spec().minTaskMember().entrySet()) {
            int lack = Math.max(0, t.getValue() - byTask.getOrDefault(t.getKey(), 0));
            for (int i = 0; i < lack && out.size() < missing; i++) {
                out.add(new GangPlanner.Member("", t.getKey(), requestOfTask.getOrDefault(t.getKey(), common),
                        constraintsOfTask.getOrDefault(t.getKey(), anyConstraints), null));
            }
        }
        while (out.size() < missing) {
            out.add(new GangPlanner.Member("", "", common, anyConstraints, null));
        }
        return out;
    }

    /**
     * A member of a reserved gang for whom no slot fits (it arrived after the plan, or with another request than
     * its stand-in): a surplus stand-in is released, and a slot for it is added on {@code node} if the queue
     * admits it. Returns the new slot, or null.
     */
    public Slot addSlotFor(Gang g, Reservation r, Pod p, String node) {
        releaseSurplusSlot(g, r, p);
        if (!(books.queueVerdict(g.queue(), p.request(), g.key()) instanceof QueueAdmission.Verdict.Admitted)) {
            return null;
        }
        return ledger.addSlot(r, new Ledger.Placement(node, p.request(), p.task()));
    }

    /**
     * If the reservation holds more free slots than the members still expected (known members without a slot,
     * plus members that do not exist yet), one of them was a provisional stand-in sized for a request this
     * member does not have: release it.
     */
    private void releaseSurplusSlot(Gang g, Reservation r, Pod p) {
        int expected = Math.max(0, g.minMember() - g.memberCount());
        for (Pod m : g.members()) {
            if (!m.uid().equals(p.uid()) && ledger.pod(m.uid()) == null && r.slotOf(m.uid()) == null) {
                expected++;
            }
        }
        int free = 0;
        Slot surplus = null;
        for (Slot s : r.slots()) {
            if (s.isFree()) {
                free++;
                surplus = s;
            }
        }
        if (free > expected && surplus != null) {
            ledger.releaseSlot(r, surplus);
        }
    }
}
