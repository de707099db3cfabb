package dev.muster.core.scheduler;

import dev.muster.core.gang.BindWaiter;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.gang.HeldBind;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.GangState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The scheduling core: the one implementation behind the HTTP and gRPC extender verbs, fed by cluster
 * sync. It decides filter, prioritize, bind and preempt for single pods and gangs, and reports every
 * allocation and gang state change to the {@link AllocationJournal}.
 *
 * <p><b>Thread-safety.</b> This class is thread-safe. One lock, {@code lock}, guards every field and
 * everything reachable from them: the {@link Ledger}, the gangs, the queues, the pod registry and the
 * decision cache. Futures of waiting binds are completed, and the {@link Binder} is called, only after
 * the lock is released ({@link #deferred}), so no foreign code ever runs under it. Journal appends
 * happen under the lock (lock order: this lock, then the journal's), which makes the stream's order the
 * order in which state changed.
 *
 * <p><b>Gang lifecycle</b> (see {@link GangState}): a gang waits until {@code minMember} pods exist;
 * the first filter of a member then plans all unbound members and, if the queue admits and everything
 * required fits, reserves slots with a deadline. Filter steers members to slot nodes; bind claims a
 * slot and waits at the barrier until {@code minMember} members are bound or waiting, then every
 * waiting member is bound. The deadline passing first fails the waiting binds, releases the
 * reservation and backs the gang off. Slots invalidated by pods other schedulers place move if they
 * can; otherwise the reservation is released and the gang is planned again.
 */
public final class GangScheduler implements ClusterSink {
    private static final System.Logger LOG = System.getLogger(GangScheduler.class.getName());

    private final SchedulerConfig config;
    private final Binder binder;
    private final AllocationJournal journal;
    private final LongSupplier nanoTime;
    private final GangPlanner planner;

    private final ReentrantLock lock = new ReentrantLock();
    // ---- everything below is guarded by lock ----
    private final Ledger ledger = new Ledger();
    private final Map<String, Pod> pods = new HashMap<>(); // uid → latest observation (pending or bound)
    private final Map<GangKey, Gang> gangs = new HashMap<>();
    private final Map<String, QueueSpec> queues = new HashMap<>();
    private final DecisionCache decisions;
    private final List<Runnable> deferred = new ArrayList<>();
    private final Set<String> bindsInFlight = new HashSet<>(); // uids whose Binding POST is under way
    private final Set<GangKey> holding = new HashSet<>(); // gangs with held binds (Gang.held() not empty)
    private boolean synced;

    public GangScheduler(SchedulerConfig config, Binder binder, AllocationJournal journal, LongSupplier nanoTime) {
        this.config = config;
        this.binder = binder;
        this.journal = journal;
        this.nanoTime = nanoTime;
        this.planner = new GangPlanner(config.policy());
        this.decisions = new DecisionCache(config.decisionCache(), config.decisionTtl().toNanos());
    }

    public SchedulerConfig config() {
        return config;
    }

    // =================================================================================================
    // filter / prioritize
    // =================================================================================================

    /**
     * Which of {@code candidates} (the nodes that passed kube-scheduler's own filters) can take
     * {@code pod}. For a gang member this may plan and reserve the whole gang.
     */
    public FilterResult filter(Pod pod, List<String> candidates) {
        return locked(() -> {
            long now = nanoTime.getAsLong();
            Pod p = rememberFromRequest(pod);
            Decision d = p.gang() == null ? singleDecision(p, candidates, null) : gangDecision(p, candidates, now);
            decisions.put(DecisionCache.key(p.uid(), p.resourceVersion()), d.scores, now);
            return d.result();
        });
    }

    /** Scores 0..10 for {@code candidates}: a gang member's slot nodes 10, others by the scoring policy. */
    public List<NodeScore> prioritize(Pod pod, List<String> candidates) {
        return locked(() -> {
            long now = nanoTime.getAsLong();
            // kube-scheduler prioritizes exactly the nodes filter passed, in the same order: walk both in step
            List<NodeScore> kept = decisions.get(DecisionCache.key(pod.uid(), pod.resourceVersion()), now);
            Pod p = pods.getOrDefault(pod.uid(), pod);
            Reservation r = p.gang() == null ? null : ledger.reservation(p.gang());
            List<NodeScore> out = new ArrayList<>(candidates.size());
            for (int i = 0; i < candidates.size(); i++) {
                String n = candidates.get(i);
                NodeScore k = kept != null && i < kept.size() ? kept.get(i) : null;
                out.add(k != null && k.node().equals(n) ? k : new NodeScore(n, scoreOf(p, r, n)));
            }
            return out;
        });
    }

    private int scoreOf(Pod p, Reservation r, String node) {
        if (r != null) {
            for (Slot s : r.slots()) {
                if (s.node().equals(node) && (p.uid().equals(s.podUid()) || (s.isFree() && s.fits(p.task(), p.request())))) {
                    return ScoringPolicy.MAX_EXTENDER_SCORE;
                }
            }
        }
        NodeEntry e = ledger.node(node);
        if (e == null) {
            return 0;
        }
        return ScoringPolicy.toExtenderScore(config.policy().score(e.allocatable(), e.inUse(), p.request()));
    }

    /** A filter answer being built, plus the scores to keep for prioritize. */
    private record Decision(List<String> feasible, Map<String, String> failed, Map<String, String> unresolvable,
                            List<NodeScore> scores) {
        Decision() {
            this(new ArrayList<>(), new LinkedHashMap<>(), new LinkedHashMap<>(), new ArrayList<>());
        }

        FilterResult result() {
            return new FilterResult(feasible, failed, unresolvable);
        }

        static Decision allFailed(List<String> nodes, String reason, boolean unresolvable) {
            Decision d = new Decision();
            for (String n : nodes) {
                (unresolvable ? d.unresolvable : d.failed).put(n, reason);
            }
            return d;
        }
    }

    private Decision singleDecision(Pod p, List<String> candidates, String queueToCheck) {
        if (queueToCheck != null) {
            QueueAdmission.Verdict v = QueueAdmission.check(queueToCheck, queues.get(queueToCheck), ledger.heldByQueue(queueToCheck), p.request());
            if (v instanceof QueueAdmission.Verdict.Refused refused) {
                return Decision.allFailed(candidates, refused.reason(), !refused.resolvable());
            }
        }
        Decision d = new Decision();
        for (String n : candidates) {
            NodeEntry e = ledger.node(n);
            String why = whyNot(e, n, p.request());
            if (why == null) {
                d.feasible.add(n);
                d.scores.add(new NodeScore(n, ScoringPolicy.toExtenderScore(
                        config.policy().score(e.allocatable(), e.inUse(), p.request()))));
            } else {
                d.failed.put(n, why);
            }
        }
        return d;
    }

    /** Why {@code request} cannot be placed on the node now, or null when it can. */
    private static String whyNot(NodeEntry e, String name, Resources request) {
        if (e == null || !e.known()) {
            return "node " + name + " is not known to muster yet";
        }
        if (!e.schedulable()) {
            return "node is unschedulable";
        }
        if (e.overcommitted()) {
            return "node is overcommitted (pods use more than allocatable)";
        }
        if (request.fitsIn(e.free())) {
            return null;
        }
        Resources shortage = request.shortageAgainst(e.free());
        return "insufficient " + String.join(", ", shortage.asMap().keySet()) + " (after gang reservations)";
    }

    private Decision gangDecision(Pod p, List<String> candidates, long now) {
        Gang g = gangs.get(p.gang());
        if (g == null || g.spec() == null) {
            return holdDecision(p, candidates, "podgroup " + p.gang() + " does not exist (yet)");
        }
        Reservation r = ledger.reservation(g.key());
        if (r == null && g.released()) {
            return singleDecision(p, candidates, g.queue()); // the gang runs: further members bind like single pods
        }
        if (r == null) {
            Refusal refusal = planGang(g, now);
            if (refusal != null) {
                return switch (refusal.kind()) {
                    case HOLD -> holdDecision(p, candidates, refusal.reason());
                    case REFUSE -> Decision.allFailed(candidates, refusal.reason(), false);
                    case NEVER -> Decision.allFailed(candidates, refusal.reason(), true);
                };
            }
            r = ledger.reservation(g.key());
            if (r == null) {
                return singleDecision(p, candidates, g.queue()); // held binds opened the barrier while planning
            }
        }
        return slotDecision(g, r, p, candidates);
    }

    /**
     * A member whose gang cannot be admitted now, for a reason that may pass (backing off, not fitting,
     * PodGroup not seen yet). Refusing it here could park it in kube-scheduler's unschedulable queue until
     * an unrelated cluster event, so it passes on every candidate kube-scheduler found room on — except
     * nodes whose room other gangs hold — and its bind is held while muster retries ({@link HeldBind}).
     * Nodes where muster's view is fuller than kube-scheduler's (a delete muster has not seen yet) pass too:
     * kube-scheduler checked the pod's fit; the held bind re-checks against muster's books.
     */
    private Decision holdDecision(Pod p, List<String> candidates, String reason) {
        Decision d = new Decision();
        for (String n : candidates) {
            NodeEntry e = ledger.node(n);
            String why = null;
            if (e != null && e.known()) {
                if (!e.schedulable() || e.overcommitted()) {
                    why = whyNot(e, n, p.request());
                } else if (!p.request().fitsIn(e.free()) && p.request().fitsIn(e.allocatable().minus(e.used()))) {
                    why = "room on this node is reserved for other gangs";
                }
            }
            if (why == null) {
                d.feasible.add(n);
                d.scores.add(new NodeScore(n, e == null || !e.known() ? 0 : ScoringPolicy.toExtenderScore(
                        config.policy().score(e.allocatable(), e.inUse(), p.request()))));
            } else {
                d.failed.put(n, reason + "; " + why);
            }
        }
        return d;
    }

    /**
     * Why a gang was not admitted, and what that means for its members: HOLD — the reason may pass at any
     * moment (backing off, not fitting now, members or PodGroup missing): members pass filter and their binds
     * are held; REFUSE — the queue is full for now: members are refused at filter (holding them would take room
     * in kube-scheduler's view that other queues can use; a pod of the queue finishing is the event that wakes
     * them, and an extender-only refusal is retried from kube-scheduler's backoff queue anyway); NEVER — a
     * closed queue or a gang larger than its queue's capability.
     */
    private record Refusal(String reason, Kind kind) {
        enum Kind { HOLD, REFUSE, NEVER }
    }

    /**
     * Plans and reserves the gang; returns null on success, else the refusal.
     * Members whose binds are held are pinned to the nodes kube-scheduler chose for them; members that do
     * not exist yet get provisional slots sized like the members that do, so the gang's first members pass
     * filter at once and wait at the barrier instead of being refused until the last one exists.
     */
    private Refusal planGang(Gang g, long now) {
        String prefix = "gang " + g.key() + ": ";
        if (g.failures() > 0 && now - g.notBeforeNanos() < 0) {
            long waitMs = (g.notBeforeNanos() - now) / 1_000_000;
            return new Refusal(prefix + "backing off for " + Math.max(1, Duration.ofMillis(waitMs).toSeconds()) + "s after: " + g.reason(),
                    Refusal.Kind.HOLD);
        }
        if (g.memberCount() == 0) {
            String reason = prefix + "0/" + g.minMember() + " pods exist";
            setState(g, GangState.WAITING, reason);
            return new Refusal(reason, Refusal.Kind.HOLD);
        }
        // 1. members whose binds are held: kube-scheduler already chose their nodes
        Map<String, Resources> taken = new HashMap<>();
        List<Ledger.Placement> pinned = new ArrayList<>();
        Set<String> pinnedUids = new HashSet<>();
        for (HeldBind h : g.held().values()) {
            Pod m = pods.get(h.waiter().pod().uid());
            NodeEntry e = ledger.node(h.waiter().node());
            if (m == null || ledger.pod(m.uid()) != null || e == null
                    || !e.accepts(taken.getOrDefault(e.name(), Resources.ZERO).plus(m.request()))) {
                continue; // not pinned: it is offered a slot (or fails) once the gang is reserved
            }
            taken.merge(e.name(), m.request(), Resources::plus);
            pinned.add(new Ledger.Placement(e.name(), m.request(), m.task()));
            pinnedUids.add(m.uid());
        }
        // 2. the other members; pinned ones count as placed
        List<GangPlanner.Member> unbound = new ArrayList<>();
        Map<String, Integer> placedByTask = new HashMap<>();
        int placed = pinned.size();
        for (Pod m : g.members()) {
            if (ledger.pod(m.uid()) != null || pinnedUids.contains(m.uid())) {
                placedByTask.merge(m.task(), 1, Integer::sum);
            } else {
                unbound.add(new GangPlanner.Member(m.uid(), m.task(), m.request()));
            }
        }
        // 3. members that do not exist yet
        int missing = Math.max(0, g.minMember() - g.memberCount());
        unbound.addAll(provisionalMembers(g, missing));
        GangPlanner.Result result = planner.plan(ledger.nodes(), unbound,
                new GangPlanner.Requirement(g.minMember(), g.spec().minTaskMember(), g.bound() + placed, placedByTask), taken);
        String exist = missing > 0 ? " (" + g.memberCount() + "/" + g.minMember() + " pods exist)" : "";
        if (result instanceof GangPlanner.Result.Unfit unfit) {
            String why = unfit.reason();
            if (unfit.shortfall() != null) { // tell people what the whole gang lacks: count the pinned members of that group
                GangPlanner.Shortfall sf = unfit.shortfall();
                int pinnedAlike = 0;
                for (Ledger.Placement pp : pinned) {
                    if (pp.task().equals(sf.task()) && pp.request().equals(sf.request())) {
                        pinnedAlike++;
                    }
                }
                why = sf.plus(pinnedAlike).describe();
            }
            String reason = prefix + why + exist;
            setState(g, GangState.UNSCHEDULABLE, reason);
            return new Refusal(reason, Refusal.Kind.HOLD);
        }
        GangPlanner.Result.Planned plan = (GangPlanner.Result.Planned) result;
        Resources total = plan.total();
        for (Ledger.Placement pp : pinned) {
            total = total.plus(pp.request());
        }
        String queue = g.queue();
        QueueAdmission.Verdict verdict = QueueAdmission.check(queue, queues.get(queue), ledger.heldByQueue(queue), total);
        if (verdict instanceof QueueAdmission.Verdict.Refused refused) {
            String reason = prefix + refused.reason();
            setState(g, GangState.UNSCHEDULABLE, reason);
            return new Refusal(reason, refused.resolvable() ? Refusal.Kind.REFUSE : Refusal.Kind.NEVER);
        }
        Duration deadline = g.spec().deadline() != null ? g.spec().deadline() : config.gangDeadline();
        List<Ledger.Placement> all = new ArrayList<>(pinned);
        all.addAll(plan.placements());
        ledger.reserve(g.key(), queue, now + deadline.toNanos(), all);
        setState(g, GangState.ADMITTED, "");
        setState(g, GangState.RESERVED, all.size() + " slots held for " + deadline.toSeconds() + "s" + exist);
        adoptHeld(g, now);
        return null;
    }

    /**
     * Stand-ins for {@code missing} members that do not exist yet: first what each task still lacks for its
     * {@code minTaskMember} (sized like a member of that task), then any task, sized like the most common
     * member request. A member that arrives with another request gets its own slot in exchange.
     */
    private static List<GangPlanner.Member> provisionalMembers(Gang g, int missing) {
        List<GangPlanner.Member> out = new ArrayList<>();
        if (missing == 0) {
            return out;
        }
        Map<String, Integer> byTask = new HashMap<>();
        Map<String, Resources> requestOfTask = new HashMap<>();
        Map<Resources, Integer> requests = new HashMap<>();
        for (Pod m : g.members()) {
            byTask.merge(m.task(), 1, Integer::sum);
            requestOfTask.putIfAbsent(m.task(), m.request());
            requests.merge(m.request(), 1, Integer::sum);
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
                out.add(new GangPlanner.Member("", t.getKey(), requestOfTask.getOrDefault(t.getKey(), common)));
            }
        }
        while (out.size() < missing) {
            out.add(new GangPlanner.Member("", "", common));
        }
        return out;
    }

    /** Steers a member to its gang's slots: slot nodes pass; otherwise a slot moves to a candidate. */
    private Decision slotDecision(Gang g, Reservation r, Pod p, List<String> candidates) {
        Slot mine = r.slotOf(p.uid());
        Map<String, Slot> usable = new HashMap<>(); // node → a slot this pod may use there
        for (Slot s : r.slots()) {
            if (s == mine || (s.isFree() && s.fits(p.task(), p.request()))) {
                usable.putIfAbsent(s.node(), s);
            }
        }
        if (mine != null) {
            usable.put(mine.node(), mine);
        }
        Decision d = new Decision();
        String target = null;
        for (String n : candidates) {
            if (usable.containsKey(n)) {
                d.feasible.add(n);
                if (mine != null && mine.node().equals(n)) {
                    target = n;
                }
            }
        }
        if (target == null && !d.feasible.isEmpty()) {
            target = d.feasible.getFirst();
        }
        if (target == null) {
            target = moveSlotForMember(g, r, p, mine, candidates);
            if (target != null) {
                d.feasible.add(target);
            }
        } else if (mine == null || !mine.node().equals(target)) {
            if (mine != null && mine.state() == Slot.State.EARMARKED) {
                mine.free();
            }
            usable.get(target).earmark(p.uid());
        }
        if (target == null) {
            String reason = "gang " + g.key() + ": no reserved slot on these nodes and none has room to move one";
            return Decision.allFailed(candidates, reason, false);
        }
        for (String n : candidates) {
            if (d.feasible.contains(n)) {
                d.scores.add(new NodeScore(n, n.equals(target) ? ScoringPolicy.MAX_EXTENDER_SCORE : ScoringPolicy.MAX_EXTENDER_SCORE - 1));
            } else {
                d.failed.put(n, "gang " + g.key() + " holds no free slot on this node");
            }
        }
        return d;
    }

    /**
     * None of the candidates holds a slot for the member: move one (its own, else a free one) to the best
     * candidate with unreserved room, or add a slot when the gang has none left for it. Returns the node,
     * or null.
     */
    private String moveSlotForMember(Gang g, Reservation r, Pod p, Slot mine, List<String> candidates) {
        Slot movable = mine != null && mine.state() != Slot.State.CLAIMED ? mine : null;
        if (movable == null) {
            for (Slot s : r.slots()) {
                if (s.isFree() && s.fits(p.task(), p.request())) {
                    movable = s;
                    break;
                }
            }
        }
        Resources need = movable != null ? movable.request() : p.request();
        String best = bestCandidate(candidates, need);
        if (best == null) {
            return null;
        }
        if (movable != null) {
            ledger.moveSlot(r, movable, best);
        } else {
            releaseSurplusSlot(g, r, p);
            QueueAdmission.Verdict v = QueueAdmission.check(g.queue(), queues.get(g.queue()), ledger.heldByQueue(g.queue()), need);
            if (!(v instanceof QueueAdmission.Verdict.Admitted)) {
                return null;
            }
            movable = ledger.addSlot(r, new Ledger.Placement(best, need, p.task()));
        }
        movable.earmark(p.uid());
        return best;
    }

    /**
     * A member that fits none of the free slots arrived: if the reservation holds more free slots than the
     * members still expected (known members without a slot, plus members that do not exist yet), one of
     * them was a provisional stand-in sized for a request this member does not have — release it.
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

    private String bestCandidate(List<String> candidates, Resources need) {
        String best = null;
        double bestScore = -1;
        for (String n : candidates) {
            NodeEntry e = ledger.node(n);
            if (e != null && e.accepts(need)) {
                double s = config.policy().score(e.allocatable(), e.inUse(), need);
                if (s > bestScore) {
                    best = n;
                    bestScore = s;
                }
            }
        }
        return best;
    }

    // =================================================================================================
    // bind
    // =================================================================================================

    /**
     * Binds {@code pod} to {@code node}. A single pod (or a member of a gang that already runs) is bound
     * at once; a gang member waits at the barrier. The future completes when the pod is bound or the bind
     * failed; it is never completed while this scheduler's lock is held. A repeated bind of the same pod
     * replaces the earlier waiter instead of counting twice.
     */
    public CompletableFuture<BindResult> bind(PodId podId, String node) {
        return locked(() -> {
            CompletableFuture<BindResult> result = new CompletableFuture<>();
            Pod p = pods.get(podId.uid());
            if (p == null) {
                result.complete(BindResult.failed("pod " + podId + " (uid " + podId.uid() + ") is unknown to muster: it was never filtered or observed"));
                return result;
            }
            PodRecord existing = ledger.pod(p.uid());
            if (existing != null) {
                result.complete(existing.node().equals(node) ? BindResult.BOUND
                        : BindResult.failed("pod " + podId + " is already bound to " + existing.node()));
                return result;
            }
            if (bindsInFlight.contains(p.uid())) {
                result.complete(BindResult.failed("pod " + podId + " is being bound already"));
                return result;
            }
            if (p.gang() == null) {
                bindSingle(p, node, "", result);
                return result;
            }
            Gang g = gangs.computeIfAbsent(p.gang(), Gang::new);
            long now = nanoTime.getAsLong();
            if (g.spec() == null || (!g.released() && ledger.reservation(g.key()) == null)) {
                hold(g, p, node, result, now);
            } else {
                bindMember(g, p, node, result);
            }
            return result;
        });
    }

    /** A member of a gang that is reserved or already runs: claim its slot and wait at the barrier. */
    private void bindMember(Gang g, Pod p, String node, CompletableFuture<BindResult> result) {
        Reservation r = ledger.reservation(g.key());
        Slot slot = r == null ? null : claimSlot(r, p, node);
        if (slot == null) {
            if (g.released()) {
                QueueAdmission.Verdict v = QueueAdmission.check(g.queue(), queues.get(g.queue()), ledger.heldByQueue(g.queue()), p.request());
                if (v instanceof QueueAdmission.Verdict.Refused refused) {
                    result.complete(BindResult.failed("gang " + g.key() + ": " + refused.reason()));
                } else {
                    bindSingle(p, node, g.queue(), result);
                }
            } else {
                result.complete(BindResult.failed(r == null
                        ? "gang " + g.key() + " holds no reservation (" + (g.reason().isEmpty() ? g.state().name() : g.reason()) + ")"
                        : "gang " + g.key() + " holds no slot for pod " + p.id() + " on node " + node + " and the node has no room to move one there"));
            }
            return;
        }
        if (g.released()) {
            startBinding(g, p, node, result);
            return;
        }
        BindWaiter previous = g.waiters().put(p.uid(), new BindWaiter(p.id(), node, result));
        if (previous != null) {
            completeLater(previous.result(), BindResult.failed("replaced by a newer bind of the same pod"));
        }
        openBarrierIfReady(g);
    }

    // ---- held binds: members whose gang could not be admitted when kube-scheduler asked ---------------

    private void hold(Gang g, Pod p, String node, CompletableFuture<BindResult> result, long now) {
        HeldBind previous = g.held().put(p.uid(), new HeldBind(new BindWaiter(p.id(), node, result), now + config.admissionHold().toNanos()));
        if (previous != null) {
            completeLater(previous.waiter().result(), BindResult.failed("replaced by a newer bind of the same pod"));
        }
        holding.add(g.key());
        admitHeld(g, now);
    }

    /** Tries to admit a gang with held binds (they are pinned to their nodes); no-op while it cannot be. */
    private void admitHeld(Gang g, long now) {
        if (g.held().isEmpty()) {
            holding.remove(g.key());
            return;
        }
        if (g.spec() == null) {
            return;
        }
        if (!g.released() && ledger.reservation(g.key()) == null) {
            Refusal refusal = planGang(g, now); // adopts the held binds when it reserves
            if (refusal != null && refusal.kind() != Refusal.Kind.HOLD) {
                failHeld(g, refusal.reason(), Long.MAX_VALUE);
            }
            return;
        }
        adoptHeld(g, now);
    }

    /** The gang is reserved (or runs): every held bind takes the normal path — a slot, then the barrier. */
    private void adoptHeld(Gang g, long now) {
        if (g.held().isEmpty()) {
            return;
        }
        List<HeldBind> todo = new ArrayList<>(g.held().values());
        g.held().clear();
        holding.remove(g.key());
        for (HeldBind h : todo) {
            Pod p = pods.get(h.waiter().pod().uid());
            if (p == null) {
                completeLater(h.waiter().result(), BindResult.failed("pod " + h.waiter().pod() + " was deleted"));
            } else {
                bindMember(g, p, h.waiter().node(), h.waiter().result());
            }
        }
    }

    /** Fails the held binds whose hold ends by {@code until} (all: Long.MAX_VALUE), with the gang's reason. */
    private void failHeld(Gang g, String reason, long until) {
        for (var it = g.held().values().iterator(); it.hasNext(); ) {
            HeldBind h = it.next();
            if (until - h.untilNanos() >= 0) {
                it.remove();
                completeLater(h.waiter().result(), BindResult.failed(reason));
            }
        }
        if (g.held().isEmpty()) {
            holding.remove(g.key());
        }
    }

    private String heldReason(Gang g, long now) {
        if (g.spec() == null) {
            return "podgroup " + g.key() + " does not exist (yet)";
        }
        if (g.failures() > 0 && now - g.notBeforeNanos() < 0) {
            return "gang " + g.key() + ": backing off for " + Math.max(1, (g.notBeforeNanos() - now) / 1_000_000_000L)
                    + "s after: " + g.reason();
        }
        return g.reason().isEmpty() ? "gang " + g.key() + " could not be admitted yet" : g.reason();
    }

    /** After capacity freed or a gang, queue or node changed: retry every gang with held binds. */
    private void admitHeldGangs() {
        if (holding.isEmpty()) {
            return;
        }
        long now = nanoTime.getAsLong();
        for (GangKey k : new ArrayList<>(holding)) {
            Gang g = gangs.get(k);
            if (g == null) {
                holding.remove(k);
            } else {
                admitHeld(g, now);
            }
        }
    }

    /** Withdraws a waiting bind (its caller went away): the pod's slot is freed for another try. */
    public void cancelBind(PodId podId) {
        locked(() -> {
            Pod p = pods.get(podId.uid());
            Gang g = p == null || p.gang() == null ? null : gangs.get(p.gang());
            if (g == null) {
                return null;
            }
            BindWaiter w = g.waiters().remove(podId.uid());
            if (w != null) {
                completeLater(w.result(), BindResult.failed("bind cancelled by the caller"));
                freeSlotOf(g.key(), podId.uid());
            }
            HeldBind h = g.held().remove(podId.uid());
            if (h != null) {
                completeLater(h.waiter().result(), BindResult.failed("bind cancelled by the caller"));
            }
            return null;
        });
    }

    private Slot claimSlot(Reservation r, Pod p, String node) {
        Slot mine = r.slotOf(p.uid());
        if (mine != null && mine.node().equals(node)) {
            mine.claim(p.uid());
            return mine;
        }
        for (Slot s : r.slots()) {
            if (s.isFree() && s.node().equals(node) && s.fits(p.task(), p.request())) {
                if (mine != null) {
                    mine.free();
                }
                s.claim(p.uid());
                return s;
            }
        }
        NodeEntry e = ledger.node(node);
        Slot movable = mine;
        if (movable == null) {
            for (Slot s : r.slots()) {
                if (s.isFree() && s.fits(p.task(), p.request())) {
                    movable = s;
                    break;
                }
            }
        }
        if (movable != null && e != null && e.accepts(movable.request())) {
            ledger.moveSlot(r, movable, node);
            movable.claim(p.uid());
            return movable;
        }
        return null;
    }

    private void openBarrierIfReady(Gang g) {
        if (g.released() || g.bound() + g.waiters().size() < g.minMember()) {
            return;
        }
        g.released(true);
        g.succeeded();
        // BOUND is reported when minMember are bound (allocated), not when the Bindings are sent: Kubernetes
        // has no multi-pod binding, and a member deleted right now fails its Binding while the others succeed
        setState(g, GangState.RESERVED, (g.bound() + g.waiters().size()) + " members binding together");
        List<BindWaiter> ready = new ArrayList<>(g.waiters().values());
        g.waiters().clear();
        for (BindWaiter w : ready) {
            startBinding(g, pods.get(w.pod().uid()), w.node(), w.result());
        }
    }

    /** A gang member with a claimed slot: POST the binding; the slot is consumed when it succeeds. */
    private void startBinding(Gang g, Pod p, String node, CompletableFuture<BindResult> result) {
        bindsInFlight.add(p.uid());
        deferred.add(() -> binder.bind(p.id(), node).whenComplete((ok, err) ->
                locked(() -> {
                    bindsInFlight.remove(p.uid());
                    if (err == null) {
                        onGangMemberBound(g.key(), p, node);
                        completeLater(result, BindResult.BOUND);
                    } else {
                        onGangMemberBindFailed(g.key(), p, messageOf(err));
                        completeLater(result, BindResult.failed(messageOf(err)));
                    }
                    return null;
                })));
    }

    /**
     * A Binding POST of a gang whose barrier opened failed (typically: the pod was deleted meanwhile). Its
     * room is released at once; if the gang can no longer reach minMember with what is bound and in flight,
     * it is reported short — never BOUND — and a replacement member joins the running members later.
     */
    private void onGangMemberBindFailed(GangKey key, Pod p, String error) {
        releaseSlotOf(key, p.uid());
        Gang g = gangs.get(key);
        if (g == null || !g.released() || g.spec() == null) {
            return;
        }
        int inFlight = 0;
        for (Pod m : g.members()) {
            if (bindsInFlight.contains(m.uid())) {
                inFlight++;
            }
        }
        if (g.bound() + inFlight < g.minMember()) {
            setState(g, GangState.UNSCHEDULABLE, "gang " + key + ": only " + (g.bound() + inFlight) + "/" + g.minMember()
                    + " members could be bound: pod " + p.id() + " failed to bind (" + error + "); the bound members keep"
                    + " their places and a replacement member joins them");
        }
    }

    private void onGangMemberBound(GangKey key, Pod p, String node) {
        if (ledger.pod(p.uid()) != null) {
            return; // the cluster showed it bound before the binder answered; already accounted
        }
        if (!pods.containsKey(p.uid())) {
            // deleted while its Binding was in flight: recording it now would hold phantom capacity forever
            releaseSlotOf(key, p.uid());
            return;
        }
        Gang g = gangs.get(key);
        String queue = g == null ? "" : g.queue();
        PodRecord record = new PodRecord(p.id(), node, p.request(), key, queue, true);
        Reservation r = ledger.reservation(key);
        Slot s = r == null ? null : r.slotOf(p.uid());
        if (s != null) {
            ledger.consumeSlot(r, s, record);
        } else {
            ledger.putPod(record);
        }
        allocated(record);
    }

    private void bindSingle(Pod p, String node, String queue, CompletableFuture<BindResult> result) {
        NodeEntry e = ledger.node(node);
        String why = whyNot(e, node, p.request());
        if (why != null) {
            result.complete(BindResult.failed("node " + node + " can no longer take pod " + p.id() + ": " + why));
            return;
        }
        PodRecord record = new PodRecord(p.id(), node, p.request(), p.gang(), queue, true);
        ledger.putPod(record);
        allocated(record);
        bindsInFlight.add(p.uid());
        deferred.add(() -> binder.bind(p.id(), node).whenComplete((ok, err) ->
                locked(() -> {
                    bindsInFlight.remove(p.uid());
                    if (err != null) {
                        PodRecord r = ledger.pod(p.uid());
                        if (r != null && r.assumed()) {
                            ledger.removePod(p.uid());
                            released(r);
                        }
                        completeLater(result, BindResult.failed(messageOf(err)));
                    } else {
                        completeLater(result, BindResult.BOUND);
                    }
                    return null;
                })));
    }

    private static String messageOf(Throwable t) {
        Throwable c = t;
        while ((c instanceof java.util.concurrent.CompletionException || c instanceof java.util.concurrent.ExecutionException)
                && c.getCause() != null) {
            c = c.getCause();
        }
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }

    private void releaseSlotOf(GangKey key, String uid) {
        Reservation r = ledger.reservation(key);
        Slot s = r == null ? null : r.slotOf(uid);
        if (s != null) {
            ledger.releaseSlot(r, s);
        }
    }

    private void freeSlotOf(GangKey key, String uid) {
        Reservation r = ledger.reservation(key);
        Slot s = r == null ? null : r.slotOf(uid);
        if (s != null) {
            s.free();
        }
    }

    // =================================================================================================
    // preempt
    // =================================================================================================

    /**
     * Filters kube-scheduler's preemption candidates: a node whose victims would take a running gang
     * below its {@code minMember} is dropped; every other candidate is answered unchanged.
     */
    public Map<String, Victims> preempt(Pod preemptor, Map<String, Victims> candidates) {
        return locked(() -> {
            Map<String, Victims> out = new LinkedHashMap<>();
            for (Map.Entry<String, Victims> c : candidates.entrySet()) {
                Map<GangKey, Integer> taken = new HashMap<>();
                for (String uid : c.getValue().podUids()) {
                    PodRecord r = ledger.pod(uid);
                    if (r != null && r.gang() != null) {
                        taken.merge(r.gang(), 1, Integer::sum);
                    }
                }
                boolean breaksGang = false;
                for (Map.Entry<GangKey, Integer> t : taken.entrySet()) {
                    Gang g = gangs.get(t.getKey());
                    if (g != null && g.released() && g.bound() - t.getValue() < g.minMember()) {
                        breaksGang = true;
                    }
                }
                if (!breaksGang) {
                    out.put(c.getKey(), c.getValue());
                }
            }
            return out;
        });
    }

    // =================================================================================================
    // time
    // =================================================================================================

    /**
     * Expires reservations whose deadline passed: waiting binds fail, capacity is released, the gang
     * backs off. For gangs that already run, unused leftover slots are released. Call it periodically.
     */
    public void expireDue() {
        locked(() -> {
            long now = nanoTime.getAsLong();
            for (Reservation r : new ArrayList<>(ledger.reservations())) {
                if (now - r.deadlineNanos() < 0) {
                    continue;
                }
                Gang g = gangs.get(r.gang());
                if (g != null && g.released()) {
                    for (Slot s : new ArrayList<>(r.slots())) {
                        if (s.state() != Slot.State.CLAIMED) {
                            ledger.releaseSlot(r, s);
                        }
                    }
                    continue;
                }
                if (g == null) {
                    ledger.releaseReservation(r.gang());
                    continue;
                }
                String reason = "gang " + g.key() + ": deadline passed with " + (g.bound() + g.waiters().size()) + "/"
                        + g.minMember() + " members bound or waiting";
                dropReservation(g, reason);
                setState(g, GangState.EXPIRED, reason);
                g.failed(now + config.backoff().delayAfter(g.failures() + 1).toNanos());
                setState(g, GangState.BACKED_OFF, reason);
            }
            admitHeldGangs();
            for (GangKey k : new ArrayList<>(holding)) {
                Gang g = gangs.get(k);
                if (g != null) {
                    failHeld(g, heldReason(g, now), now);
                }
            }
            return null;
        });
    }

    /** Fails every waiting bind of the gang and releases its reservation. */
    private void dropReservation(Gang g, String reason) {
        for (BindWaiter w : g.waiters().values()) {
            completeLater(w.result(), BindResult.failed(reason));
        }
        g.waiters().clear();
        failHeld(g, reason, Long.MAX_VALUE);
        Reservation r = ledger.reservation(g.key());
        if (r != null) {
            // keep slots whose Binding POST is under way: those pods are being bound right now
            boolean inFlight = r.slots().stream().anyMatch(s -> s.podUid() != null && bindsInFlight.contains(s.podUid()));
            if (!inFlight) {
                ledger.releaseReservation(g.key());
            } else {
                for (Slot s : new ArrayList<>(r.slots())) {
                    if (s.podUid() == null || !bindsInFlight.contains(s.podUid())) {
                        ledger.releaseSlot(r, s);
                    }
                }
            }
        }
    }

    // =================================================================================================
    // cluster sync (ClusterSink)
    // =================================================================================================

    @Override
    public void upsertNode(Node node) {
        locked(() -> {
            ledger.upsertNode(node);
            repair(node.name());
            admitHeldGangs();
            return null;
        });
    }

    @Override
    public void deleteNode(String name) {
        locked(() -> {
            ledger.removeNode(name);
            repair(name);
            admitHeldGangs();
            return null;
        });
    }

    @Override
    public void upsertPod(Pod pod) {
        locked(() -> {
            observe(pod);
            return null;
        });
    }

    @Override
    public void deletePod(String uid) {
        locked(() -> {
            Pod old = pods.remove(uid);
            PodRecord r = ledger.removePod(uid);
            if (r != null) {
                released(r);
            }
            if (old != null && old.gang() != null) {
                Gang g = gangs.get(old.gang());
                if (g != null) {
                    g.removeMember(uid);
                    BindWaiter w = g.waiters().remove(uid);
                    if (w != null) {
                        completeLater(w.result(), BindResult.failed("pod " + old.id() + " was deleted"));
                    }
                    HeldBind h = g.held().remove(uid);
                    if (h != null) {
                        completeLater(h.waiter().result(), BindResult.failed("pod " + old.id() + " was deleted"));
                    }
                    if (g.released()) {
                        releaseSlotOf(g.key(), uid); // the gang runs: nothing will wait for this room
                    } else {
                        freeSlotOf(g.key(), uid);    // still assembling: the room waits for a replacement
                    }
                    forgetIfDone(g);
                }
            }
            admitHeldGangs();
            return null;
        });
    }

    @Override
    public void upsertPodGroup(PodGroupSpec podGroup) {
        locked(() -> {
            Gang g = gangs.computeIfAbsent(podGroup.key(), Gang::new);
            boolean isNew = g.spec() == null;
            g.spec(podGroup);
            if (isNew) {
                emit(new AllocationEvent.GangChanged(g.key(), g.queue(), g.state(), g.reason()));
            }
            if (!g.released() && g.bound() >= g.minMember() && g.bound() > 0) {
                g.released(true); // e.g. rebuilt after a restart: the gang already runs
                setState(g, GangState.BOUND, g.bound() + " members bound");
            }
            openBarrierIfReady(g);
            admitHeldGangs();
            return null;
        });
    }

    @Override
    public void deletePodGroup(GangKey key) {
        locked(() -> {
            Gang g = gangs.get(key);
            if (g == null || g.spec() == null) {
                return null;
            }
            dropReservation(g, "podgroup " + key + " was deleted");
            emit(new AllocationEvent.GangChanged(key, g.queue(), GangState.DELETED, "podgroup deleted"));
            g.spec(null);
            g.released(false);
            g.setState(GangState.WAITING, "");
            forgetIfDone(g);
            return null;
        });
    }

    @Override
    public void upsertQueue(QueueSpec queue) {
        locked(() -> {
            queues.put(queue.name(), queue);
            admitHeldGangs();
            return null;
        });
    }

    @Override
    public void deleteQueue(String name) {
        locked(() -> queues.remove(name));
    }

    @Override
    public void markSynced() {
        locked(() -> {
            synced = true;
            return null;
        });
    }

    public boolean isSynced() {
        return locked(() -> synced);
    }

    /** A pod seen in a filter request: remembered as pending unless the cluster already told us more. */
    private Pod rememberFromRequest(Pod pod) {
        Pod known = pods.get(pod.uid());
        if (known != null && (known.isBound() || known.resourceVersion().equals(pod.resourceVersion()))) {
            return known;
        }
        observe(pod.isBound() ? pod : pod.withNode(null));
        return pods.get(pod.uid());
    }

    private void observe(Pod pod) {
        Pod old = pods.put(pod.uid(), pod);
        if (pod.phase().isTerminal()) {
            pods.remove(pod.uid());
        }
        if (old != null && old.gang() != null && !old.gang().equals(pod.gang())) {
            Gang og = gangs.get(old.gang());
            if (og != null) {
                og.removeMember(pod.uid());
                forgetIfDone(og);
            }
        }
        Gang g = null;
        if (pod.gang() != null) {
            g = gangs.computeIfAbsent(pod.gang(), Gang::new);
            if (pod.phase().isTerminal()) {
                g.removeMember(pod.uid());
            } else {
                g.putMember(pod);
            }
        }
        PodRecord rec = ledger.pod(pod.uid());
        if (pod.holdsResources()) {
            if (rec == null) {
                String queue = g == null ? "" : g.queue();
                PodRecord fresh = new PodRecord(pod.id(), pod.nodeName(), pod.request(), pod.gang(), queue, false);
                Reservation r = g == null ? null : ledger.reservation(g.key());
                Slot s = r == null ? null : r.slotOf(pod.uid());
                if (s != null && s.node().equals(pod.nodeName())) {
                    ledger.consumeSlot(r, s, fresh);
                } else {
                    if (s != null) {
                        ledger.releaseSlot(r, s);
                    }
                    ledger.putPod(fresh);
                }
                allocated(fresh);
                if (g != null) {
                    BindWaiter w = g.waiters().remove(pod.uid());
                    if (w != null) {
                        completeLater(w.result(), w.node().equals(pod.nodeName()) ? BindResult.BOUND
                                : BindResult.failed("pod " + pod.id() + " was bound to " + pod.nodeName() + " by someone else"));
                    }
                }
                repair(pod.nodeName());
            } else if (!rec.node().equals(pod.nodeName()) || !rec.request().equals(pod.request())) {
                ledger.removePod(pod.uid());
                released(rec);
                PodRecord moved = new PodRecord(pod.id(), pod.nodeName(), pod.request(), rec.gang(), rec.queue(), false);
                ledger.putPod(moved);
                allocated(moved);
                repair(pod.nodeName());
            } else if (rec.assumed()) {
                ledger.putPod(rec.confirmed());
            }
        } else if (rec != null && (pod.phase().isTerminal() || !rec.assumed())) {
            ledger.removePod(pod.uid());
            released(rec);
            admitHeldGangs();
        }
        if (g != null) {
            if (!g.released() && g.spec() != null && g.bound() > 0 && g.bound() >= g.minMember()) {
                g.released(true);
                setState(g, GangState.BOUND, g.bound() + " members bound");
            } else if (g.released() && g.bound() == 0 && g.waiters().isEmpty() && ledger.reservation(g.key()) == null
                    && allMembersGoneOrPending(g)) {
                g.released(false); // the gang finished; a new run assembles anew
                setState(g, GangState.WAITING, "");
            }
            forgetIfDone(g);
        }
    }

    private boolean allMembersGoneOrPending(Gang g) {
        for (Pod m : g.members()) {
            if (m.isBound()) {
                return false;
            }
        }
        return true;
    }

    private void forgetIfDone(Gang g) {
        if (g.isEmpty() && ledger.reservation(g.key()) == null && g.bound() == 0) {
            gangs.remove(g.key());
        }
    }

    /**
     * After use on {@code node} grew or its allocatable shrank: slots that no longer fit move to another
     * node if they can; a gang whose slot cannot move loses its reservation and is planned again.
     */
    private void repair(String node) {
        NodeEntry e = ledger.node(node);
        boolean gone = e == null || !e.known() || !e.schedulable();
        if (e != null && !gone && !e.reservationsBroken()) {
            return;
        }
        for (Reservation r : new ArrayList<>(ledger.reservations())) {
            for (Slot s : new ArrayList<>(r.slots())) {
                NodeEntry now = ledger.node(node);
                boolean stillBroken = now == null || !now.known() || !now.schedulable() || now.reservationsBroken();
                if (!stillBroken || !s.node().equals(node) || ledger.reservation(r.gang()) != r) {
                    continue;
                }
                if (s.podUid() != null && bindsInFlight.contains(s.podUid())) {
                    continue; // being bound right now; the binding will show the truth
                }
                Gang g = gangs.get(r.gang());
                String target = null;
                for (NodeEntry other : ledger.nodes()) {
                    if (!other.name().equals(node) && other.accepts(s.request())) {
                        target = other.name();
                        break;
                    }
                }
                if (target != null) {
                    if (s.state() == Slot.State.CLAIMED && g != null) {
                        BindWaiter w = g.waiters().remove(s.podUid());
                        if (w != null) {
                            completeLater(w.result(), BindResult.failed("gang " + g.key() + ": the slot on " + node
                                    + " was taken by a pod muster did not place; retry"));
                        }
                        s.free();
                    }
                    ledger.moveSlot(r, s, target);
                } else if (g != null && !g.released()) {
                    String reason = "gang " + g.key() + ": reservation lost, node " + node
                            + " was taken by pods muster did not place and no other node has room";
                    dropReservation(g, reason);
                    setState(g, GangState.WAITING, reason);
                } else {
                    ledger.releaseSlot(r, s);
                }
            }
        }
    }

    // =================================================================================================
    // events, reads, plumbing
    // =================================================================================================

    private void allocated(PodRecord r) {
        if (r.gang() != null) {
            Gang g = gangs.get(r.gang());
            if (g != null) {
                g.boundChanged(1);
                if (g.released() && g.spec() != null && g.bound() >= g.minMember() && g.bound() > 0) {
                    setState(g, GangState.BOUND, g.bound() + " members bound together");
                }
            }
        }
        emit(new AllocationEvent.PodAllocated(r.pod(), r.gang(), r.queue(), r.node(), r.request()));
    }

    private void released(PodRecord r) {
        if (r.gang() != null) {
            Gang g = gangs.get(r.gang());
            if (g != null) {
                g.boundChanged(-1);
            }
        }
        emit(new AllocationEvent.PodReleased(r.pod(), r.gang(), r.queue(), r.node(), r.request()));
    }

    private void setState(Gang g, GangState state, String reason) {
        if (g.setState(state, reason) && g.spec() != null) {
            emit(new AllocationEvent.GangChanged(g.key(), g.queue(), state, reason));
        }
    }

    private void emit(AllocationEvent e) {
        journal.append(e);
    }

    private void completeLater(CompletableFuture<BindResult> f, BindResult r) {
        deferred.add(() -> f.complete(r));
    }

    /** Runs {@code body} under the lock, then — with the lock released — the actions it deferred. */
    private <T> T locked(Supplier<T> body) {
        List<Runnable> todo;
        T result;
        lock.lock();
        try {
            result = body.get();
        } finally {
            todo = deferred.isEmpty() ? List.of() : new ArrayList<>(deferred);
            deferred.clear();
            lock.unlock();
        }
        for (Runnable r : todo) {
            try {
                r.run();
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.ERROR, "deferred action failed", ex);
            }
        }
        return result;
    }

    // ---- reads (immutable copies) -------------------------------------------------------------------

    public SchedulerStats stats() {
        return locked(() -> {
            Map<GangState, Integer> byState = new EnumMap<>(GangState.class);
            int waiting = 0;
            int held = 0;
            for (Gang g : gangs.values()) {
                if (g.spec() != null) {
                    byState.merge(g.state(), 1, Integer::sum);
                }
                waiting += g.waiters().size();
                held += g.held().size();
            }
            return new SchedulerStats(ledger.nodeCount(), ledger.overcommittedCount(), ledger.podCount(),
                    ledger.reservations().size(), waiting, held, byState, synced);
        });
    }

    /** A gang's state for people and tests; null if unknown. */
    public GangView gang(GangKey key) {
        return locked(() -> {
            Gang g = gangs.get(key);
            if (g == null) {
                return null;
            }
            Reservation r = ledger.reservation(key);
            List<String> slots = new ArrayList<>();
            if (r != null) {
                for (Slot s : r.slots()) {
                    slots.add(s.node());
                }
            }
            return new GangView(key, g.spec() == null ? null : g.queue(), g.state(), g.reason(), g.minMember(),
                    g.memberCount(), g.bound(), g.waiters().size(), slots);
        });
    }

    /** The ledger's books checked against its records; empty when they balance (tests, diagnostics). */
    public List<String> checkInvariants() {
        return locked(ledger::checkInvariants);
    }

    /** Read access to the ledger for tests and diagnostics: runs {@code reader} under the lock. */
    public <T> T readLedger(java.util.function.Function<Ledger, T> reader) {
        return locked(() -> reader.apply(ledger));
    }

    /** The resource amount of a single resource held by a queue (pods + reservations). */
    public Resources heldByQueue(String queue) {
        return locked(() -> ledger.heldByQueue(queue));
    }
}
