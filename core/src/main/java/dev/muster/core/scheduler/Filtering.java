package dev.muster.core.scheduler;

import dev.muster.core.gang.BindBarrier;
import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.HeldBinds;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodHolds;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.ledger.SlotSteering;
import dev.muster.core.model.Pod;
import dev.muster.core.model.Refusal;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Filter and prioritize: which of kube-scheduler's candidate nodes can take a pod, and how they rank. A single
 * pod is checked against each node's free, unreserved room (room nominated for a pod of lower priority counts free, as
 * in kube-scheduler: {@link PodHolds}); a gang member is steered to its gang's slots (the
 * first member's filter admits the whole gang). Confined to the core's lock.
 *
 * <p>When a pod gets a node of Muster's choosing — a gang member its slot's node, a single pod the node the scoring
 * policy ranks best ({@link SchedulerConfig#pickNode}) — only that node passes and the other candidates are left out
 * of the answer altogether: kube-scheduler drops a candidate that is in none of the answer's lists, and with one
 * feasible node left it skips its score plugins (and the prioritize verb) for the pod. Their reasons would never be
 * shown (kube-scheduler reports per-node reasons only when no node is left), and at 1,000 nodes writing and reading
 * them cost more than the decision.
 */
final class Filtering {
    private final Books books;
    private final Ledger ledger;
    private final BindBarrier barrier;
    private final HeldBinds held;
    private final SlotSteering steering;
    private final GangAdmission admission;
    private final ScoringPolicy policy;
    private final boolean pickNode;

    Filtering(Books books, BindBarrier barrier, HeldBinds held, SlotSteering steering, GangAdmission admission, ScoringPolicy policy, boolean pickNode) {
        this.books = books;
        this.ledger = books.ledger();
        this.barrier = barrier;
        this.held = held;
        this.steering = steering;
        this.admission = admission;
        this.policy = policy;
        this.pickNode = pickNode;
    }

    /**
     * A filter answer being built. {@code refusingQueue}: the queue whose verdict refused the pod on every node, or null
     * (what waits for a Queue edit rather than for room, {@link ParkedPods}).
     */
    record Decision(List<String> feasible, Map<String, String> failed, Map<String, String> unresolvable, String refusingQueue) {
        Decision() {
            this(new ArrayList<>(), new LinkedHashMap<>(), new LinkedHashMap<>(), null);
        }

        /** The same answer, saying that {@code queue}'s verdict refused the pod. */
        Decision byQueue(String queue) {
            return new Decision(feasible, failed, unresolvable, queue);
        }

        FilterResult result() {
            return new FilterResult(feasible, failed, unresolvable);
        }

        static Decision only(String node) {
            Decision d = new Decision();
            d.feasible.add(node);
            return d;
        }

        static Decision allFailed(List<String> nodes, String reason, boolean unresolvable) {
            Decision d = new Decision();
            for (String n : nodes) {
                (unresolvable ? d.unresolvable : d.failed).put(n, reason);
            }
            return d;
        }
    }

    /**
     * The filter answer for {@code p}. {@code softPreferences}: the pod carries preferences that kube-scheduler's own
     * score plugins weigh (preferred affinity, pod (anti-)affinity, topology spreading), so a single pod passes on
     * every node that fits even when {@link SchedulerConfig#pickNode} is on.
     */
    Decision decide(Pod p, List<String> candidates, boolean softPreferences, long now) {
        if (p.hasMembershipConflict()) {
            // not a passing reason: only an edit of the pod resolves it (kube-scheduler retries on pod updates)
            return Decision.allFailed(candidates, "pod " + p.id().namespace() + "/" + p.id().name() + ": " + p.membershipConflict(), true);
        }
        boolean pick = pickNode && !softPreferences;
        return p.gang() == null ? single(p, candidates, null, pick) : member(p, candidates, pick, now);
    }

    /**
     * Scores 0..10 for {@code candidates}, {@code scores[i]} for {@code candidates.get(i)}: a gang member's usable slot
     * nodes ({@link SlotSteering#usable}: its own slot's, and free slots that fit it) 10, others by the scoring policy.
     * The usable slots are found once for the whole list, so a member of a large gang costs one pass over its slots
     * plus one lookup per candidate.
     */
    int[] scores(Pod p, List<String> candidates) {
        Reservation r = p.gang() == null ? null : ledger.reservation(p.gang());
        Map<String, Slot> usable = r == null ? null : steering.usable(r, p.uid(), p.task(), p.request());
        int[] scores = new int[candidates.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = usable != null && usable.containsKey(candidates.get(i)) ? ScoringPolicy.MAX_EXTENDER_SCORE : policyScore(p, candidates, i);
        }
        return scores;
    }

    private int policyScore(Pod p, List<String> candidates, int index) {
        NodeEntry e = ledger.candidate(candidates, index);
        return e == null ? 0 : ScoringPolicy.toExtenderScore(e.score(policy, p.request()));
    }

    private Decision single(Pod p, List<String> candidates, String queueToCheck, boolean pick) {
        if (queueToCheck != null && books.queueVerdict(queueToCheck, p.request()) instanceof QueueAdmission.Verdict.Refused refused) {
            return Decision.allFailed(candidates, refused.reason(), !refused.resolvable()).byQueue(queueToCheck);
        }
        Decision kept = heldFor(p, candidates);
        if (kept != null) {
            return kept;
        }
        Decision d = new Decision();
        if (pick) {
            String best = best(p.request(), p.priority(), candidates);
            if (best != null) {
                d.feasible.add(best);
                return d;
            }
            // nothing fits: every candidate gets its reason below
        }
        List<String> behind = new ArrayList<>(); // candidates Muster refuses only because its view may be behind
        for (int i = 0; i < candidates.size(); i++) {
            String n = candidates.get(i);
            NodeEntry e = ledger.candidate(candidates, i);
            String why = e == null ? "node " + n + " is not known to muster yet"
                    : ledger.holds().accepts(e, p.request(), p.priority()) ? null : whyNot(e, p.request());
            if (why == null) {
                d.feasible.add(n);
            } else {
                d.failed.put(n, why);
                if (e == null || !heldByGangs(e, p.request())) {
                    behind.add(n);
                }
            }
        }
        if (d.feasible.isEmpty() && !behind.isEmpty()) {
            // kube-scheduler found room where Muster's view (not a gang's hold) says there is none: a view that may be
            // behind, and catching up is no event kube-scheduler would retry the pod on. Its view decides.
            for (String n : behind) {
                d.failed.remove(n);
                d.feasible.add(n);
            }
        }
        return d;
    }

    /**
     * The answer for a pod room is held for ({@link PodHolds}), or null: the held node alone passes when kube-scheduler
     * found it feasible (its room is the pod's). Without it, a pod Muster preempted for fails on every candidate (it waits
     * for its victims to go); a pod kube-scheduler nominated is filtered as any other.
     */
    private Decision heldFor(Pod p, List<String> candidates) {
        PodHolds.Hold h = ledger.holds().of(p.uid());
        if (h == null) {
            return null;
        }
        if (candidates.contains(h.node())) {
            return Decision.only(h.node());
        }
        if (h.source() == PodHolds.Source.MUSTER) {
            return Decision.allFailed(candidates, "pod " + p.id() + ": room is being freed for it on node " + h.node()
                    + " (its victims are terminating)", false);
        }
        return null;
    }

    /**
     * Whether only room gangs hold (reservations, the set-aside) keeps {@code request} off {@code e} in Muster's view:
     * the node takes placements and the request fits beside what is used by pods that stay (a pod being evicted for a
     * preemptor holds room that is already the preemptor's).
     */
    private static boolean heldByGangs(NodeEntry e, Resources request) {
        return e.takesPlacements() && request.fitsIn(e.allocatable().minus(e.used()).plus(e.leaving()));
    }

    /**
     * Why a single pod cannot go on {@code e}, naming what holds the room when only gangs' room stands in the way: room
     * set aside for the gang next in line, or gang reservations. Null when it fits.
     */
    private String whyNot(NodeEntry e, Resources request) {
        String why = e.whyNot(request);
        if (why == null || !heldByGangs(e, request)) {
            return why;
        }
        if (ledger.setsAsideOn(e.name())) {
            return why + ": room on this node is set aside for gang " + ledger.setAside().gang() + " (next in line)";
        }
        return why + ": room on this node is reserved for gangs";
    }

    /**
     * The candidate on which {@code request} fits that the scoring policy ranks best, nodes with a
     * {@code PreferNoSchedule} taint after all others (as kube-scheduler's TaintToleration score ranks them for a pod
     * that does not tolerate the taint; Muster keeps no PreferNoSchedule taint's key, so a tolerating pod also prefers untainted
     * nodes). Ties go to the earliest candidate: kube-scheduler starts each pod's candidate list where the previous
     * search stopped, so equal nodes are taken in turn. Null when none fits.
     */
    private String best(Resources request, int priority, List<String> candidates) {
        String best = null;
        boolean bestTainted = true;
        double bestScore = -1;
        for (int i = 0; i < candidates.size(); i++) {
            NodeEntry e = ledger.candidate(candidates, i);
            if (e == null || !ledger.holds().accepts(e, request, priority)) {
                continue;
            }
            boolean tainted = e.preferNoSchedule();
            if (tainted && !bestTainted) {
                continue;
            }
            double score = e.score(policy, request);
            if (best == null || (bestTainted && !tainted) || score > bestScore) {
                best = candidates.get(i);
                bestTainted = tainted;
                bestScore = score;
            }
        }
        return best;
    }

    private Decision member(Pod p, List<String> candidates, boolean pick, long now) {
        Gang g = books.gang(p.gang());
        if (g != null && books.binds().waitingOrHeld(p.uid())) {
            // kube-scheduler schedules the pod again, so its earlier bind request ended (its httpTimeout may be shorter
            // than the barrier's wait): that bind is withdrawn and its slot vacated before the pod is steered anew
            barrier.fail(g, p.uid(), "pod " + p.id() + " is being scheduled again: this bind request was given up");
        }
        if (g == null || g.spec() == null) {
            return hold(p, candidates, "podgroup " + p.gang() + " does not exist (yet)");
        }
        Reservation r = ledger.reservation(g.key());
        if (r == null && g.running()) {
            if (books.runEnding(g)) {
                return hold(p, candidates, "gang " + g.key() + ": its members are being evicted for a preemptor; it starts again,"
                        + " whole, once they are gone");
            }
            return single(p, candidates, g.queue(), pick); // the gang runs: further members bind like single pods
        }
        if (r == null) {
            Refusal why = held.admit(g, now);
            if (why != null) {
                return switch (GangAdmission.Outlook.of(why)) {
                    case HOLD -> hold(p, candidates, why.text());
                    case REFUSE -> Decision.allFailed(candidates, why.text(), false).byQueue(g.queue());
                    case NEVER -> Decision.allFailed(candidates, why.text(), true).byQueue(g.queue());
                };
            }
            r = ledger.reservation(g.key());
            if (r == null) {
                return single(p, candidates, g.queue(), pick); // held binds opened the barrier while admitting
            }
        }
        return slots(g, r, p, candidates);
    }

    /**
     * A member whose gang cannot be admitted now, for a reason that may pass (backing off, not fitting, PodGroup
     * not seen yet). Refusing it here could park it in kube-scheduler's unschedulable queue until an unrelated
     * cluster event, so it passes on every candidate kube-scheduler found room on — except nodes whose room other
     * gangs hold — and its bind is held while muster retries ({@link HeldBinds}). Nodes where muster's view is
     * fuller than kube-scheduler's (a delete muster has not seen yet, a node unschedulable or overcommitted in Muster's
     * view while kube-scheduler saw its update) pass too: kube-scheduler checked the pod's fit; the held bind re-checks
     * against muster's books. Nodes whose room other gangs hold stay refused, even when that leaves no node: passing there
     * would put the member, in kube-scheduler's view, on the room set aside or reserved for another gang, and starve it.
     */
    private Decision hold(Pod p, List<String> candidates, String reason) {
        Decision d = new Decision();
        Map<String, String> texts = new java.util.HashMap<>(); // one string per distinct reason, not per node
        for (int i = 0; i < candidates.size(); i++) {
            String n = candidates.get(i);
            NodeEntry e = ledger.candidate(candidates, i);
            String why = null;
            if (e != null && e.known() && e.takesPlacements() && !p.request().fitsIn(e.free()) && heldByGangs(e, p.request())) {
                why = "room on this node is reserved for other gangs";
            }
            if (why == null) {
                d.feasible.add(n);
            } else {
                d.failed.put(n, texts.computeIfAbsent(why, w -> reason + "; " + w));
            }
        }
        return d;
    }

    /**
     * Steers a member to one slot of its gang: the node of its own slot when that is a candidate, else the first
     * candidate with a usable slot (which is then earmarked for it), else a slot moves to a candidate. Only that node
     * passes, so where the member goes does not depend on how kube-scheduler scores (or whether it asks Muster to).
     */
    private Decision slots(Gang g, Reservation r, Pod p, List<String> candidates) {
        Slot mine = r.slotOf(p.uid());
        if (mine != null && mine.state() == Slot.State.CLAIMED) {
            // its Binding is under way (a waiting or held bind was withdrawn above): it keeps its one slot, never earmarks
            // a second; the bind verb answers a second bind of it
            return candidates.contains(mine.node()) ? Decision.only(mine.node()) : passAll(candidates);
        }
        Map<String, Slot> usable = steering.usable(r, p.uid(), p.task(), p.request());
        String target = null;
        for (String n : candidates) {
            if (usable.containsKey(n) && (target == null || (mine != null && mine.node().equals(n)))) {
                target = n;
            }
        }
        if (target == null) {
            target = moveSlot(g, r, p, mine, candidates);
        } else {
            steering.steer(mine, usable.get(target), p.uid());
        }
        if (target == null) {
            // in Muster's view no candidate has a slot or room to move one. Where that is only Muster's view of the node
            // (unknown, unschedulable, overcommitted or fuller than kube-scheduler found it: a view that may be behind, and
            // catching up is no event kube-scheduler would retry the member on), the member passes, inside its gang's
            // required domain; its bind claims a slot on kube-scheduler's node or is held until one can be claimed there
            // (HeldBinds), and fails when the hold ends. Room other gangs hold stays refused (it is theirs)
            Decision d = new Decision();
            for (int i = 0; i < candidates.size(); i++) {
                NodeEntry e = ledger.candidate(candidates, i);
                if (e == null || (steering.inDomain(r, e) && !heldByGangs(e, p.request()))) {
                    d.feasible.add(candidates.get(i));
                }
            }
            if (!d.feasible.isEmpty()) {
                return d;
            }
            return Decision.allFailed(candidates, "gang " + g.key() + ": no reserved slot on these nodes and none has room to move one"
                    + (r.requiredDomain() == null ? "" : " inside its required topology domain " + r.requiredDomain()), false);
        }
        return Decision.only(target); // the other candidates are left out (see the class comment)
    }

    private static Decision passAll(List<String> candidates) {
        Decision d = new Decision();
        d.feasible.addAll(candidates);
        return d;
    }

    /**
     * None of the candidates holds a slot for the member: move one (its own, else a free one) to the best
     * candidate with unreserved room, or add a slot when the gang has none left for it. Returns the node, or null.
     */
    private String moveSlot(Gang g, Reservation r, Pod p, Slot mine, List<String> candidates) {
        Slot movable = steering.movable(r, mine, p.task(), p.request());
        String best = steering.bestCandidate(r, candidates, movable != null ? movable.request() : p.request());
        if (best == null) {
            return null;
        }
        if (movable != null) {
            ledger.moveSlot(r, movable, best);
        } else {
            movable = admission.addSlotFor(g, r, p, best);
            if (movable == null) {
                return null;
            }
        }
        ledger.earmark(movable, p.uid());
        return best;
    }
}
