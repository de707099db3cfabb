package dev.muster.core.ledger;

import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a reservation's slots a gang member uses, and where a slot may move: the ledger-level half of
 * steering members onto their gang's room. Filter asks {@link #usable} (slot nodes pass) and {@link #steer}s
 * the member's earmark; bind {@link #claim}s; when kube-scheduler's candidates hold none of the gang's slots,
 * a {@link #movable} slot moves to the {@link #bestCandidate}; repair finds a {@link #relocationTarget}.
 * A move never changes the reservation's size, so the gang stays whole, and never takes a slot out of the
 * reservation's {@linkplain Reservation#requiredDomain() required topology domain}: a node outside it is no
 * target for a move, a claim or a relocation. Confined to the ledger owner's lock.
 */
public final class SlotSteering {
    private final Ledger ledger;
    private final ScoringPolicy policy;
    private final TopologyLevels levels;

    public SlotSteering(Ledger ledger, ScoringPolicy policy) {
        this(ledger, policy, TopologyLevels.NONE);
    }

    public SlotSteering(Ledger ledger, ScoringPolicy policy, TopologyLevels levels) {
        this.ledger = ledger;
        this.policy = policy;
        this.levels = levels;
    }

    /** Whether a slot of {@code r} may be on node {@code e}: always, unless the reservation is confined to a domain. */
    public boolean inDomain(Reservation r, NodeEntry e) {
        Domain d = r.requiredDomain();
        return d == null || d.contains(levels, e.labels());
    }

    /** Node → a slot the pod may use there: its own (earmarked or claimed), else a free one that fits it. */
    public Map<String, Slot> usable(Reservation r, String uid, String task, Resources request) {
        Slot mine = r.slotOf(uid);
        Map<String, Slot> usable = new HashMap<>();
        for (Slot s : r.slots()) {
            if (s == mine || (s.isFree() && s.fits(task, request))) {
                usable.putIfAbsent(s.node(), s);
            }
        }
        if (mine != null) {
            usable.put(mine.node(), mine);
        }
        return usable;
    }

    /** Earmarks {@code target} for the pod, giving up the pod's earlier earmark (a claim is never given up here). */
    public void steer(Slot mine, Slot target, String uid) {
        if (mine == target) {
            return;
        }
        if (mine != null && mine.state() == Slot.State.EARMARKED) {
            ledger.vacate(mine);
        }
        ledger.earmark(target, uid);
    }

    /** A slot that may move for the pod: its own unless claimed, else a free one that fits; null if none. */
    public Slot movable(Reservation r, Slot mine, String task, Resources request) {
        if (mine != null && mine.state() != Slot.State.CLAIMED) {
            return mine;
        }
        for (Slot s : r.slots()) {
            if (s.isFree() && s.fits(task, request)) {
                return s;
            }
        }
        return null;
    }

    /**
     * The pod binds on {@code node}: claims its own slot there, else a free fitting slot there (giving up its
     * own), else moves a movable slot there if the node has room. Returns the claimed slot, or null.
     */
    public Slot claim(Reservation r, String uid, String task, Resources request, String node) {
        Slot mine = r.slotOf(uid);
        if (mine != null && mine.node().equals(node)) {
            ledger.claim(mine, uid);
            return mine;
        }
        for (Slot s : r.slots()) {
            if (s.isFree() && s.node().equals(node) && s.fits(task, request)) {
                if (mine != null) {
                    ledger.vacate(mine);
                }
                ledger.claim(s, uid);
                return s;
            }
        }
        Slot movable = mine != null ? mine : movable(r, null, task, request);
        NodeEntry e = ledger.node(node);
        if (movable != null && e != null && e.accepts(movable.request()) && inDomain(r, e)) {
            ledger.moveSlot(r, movable, node);
            ledger.claim(movable, uid);
            return movable;
        }
        return null;
    }

    /** The candidate with unreserved room for {@code need} that the scoring policy ranks best; null if none. */
    public String bestCandidate(List<String> candidates, Resources need) {
        return bestCandidate(null, candidates, need);
    }

    /**
     * As {@link #bestCandidate(List, Resources)}, for a slot of {@code r} (may be null): only candidates inside the
     * reservation's required domain count.
     */
    public String bestCandidate(Reservation r, List<String> candidates, Resources need) {
        String best = null;
        double bestScore = -1;
        for (int i = 0; i < candidates.size(); i++) {
            NodeEntry e = ledger.candidate(candidates, i);
            if (e != null && e.accepts(need) && (r == null || inDomain(r, e))) {
                double s = e.score(policy, need);
                if (s > bestScore) {
                    best = e.name();
                    bestScore = s;
                }
            }
        }
        return best;
    }

    /** Another node that accepts {@code need}, for a slot that no longer fits on {@code from}; null if none. */
    public String relocationTarget(String from, Resources need) {
        return relocationTarget(null, from, need);
    }

    /** As {@link #relocationTarget(String, Resources)}, for a slot of {@code r} (may be null): inside its required domain. */
    public String relocationTarget(Reservation r, String from, Resources need) {
        for (NodeEntry other : ledger.nodes()) {
            if (!other.name().equals(from) && other.accepts(need) && (r == null || inDomain(r, other))) {
                return other.name();
            }
        }
        return null;
    }
}
