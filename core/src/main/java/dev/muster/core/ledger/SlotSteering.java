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
 * A move never changes the reservation's size, so the gang stays whole. Confined to the ledger owner's lock.
 */
public final class SlotSteering {
    private final Ledger ledger;
    private final ScoringPolicy policy;

    public SlotSteering(Ledger ledger, ScoringPolicy policy) {
        this.ledger = ledger;
        this.policy = policy;
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
        if (movable != null && e != null && e.accepts(movable.request())) {
            ledger.moveSlot(r, movable, node);
            ledger.claim(movable, uid);
            return movable;
        }
        return null;
    }

    /** The candidate with unreserved room for {@code need} that the scoring policy ranks best; null if none. */
    public String bestCandidate(List<String> candidates, Resources need) {
        String best = null;
        double bestScore = -1;
        for (String n : candidates) {
            NodeEntry e = ledger.node(n);
            if (e != null && e.accepts(need)) {
                double s = policy.score(e.allocatable(), e.inUse(), need);
                if (s > bestScore) {
                    best = n;
                    bestScore = s;
                }
            }
        }
        return best;
    }

    /** Another node that accepts {@code need}, for a slot that no longer fits on {@code from}; null if none. */
    public String relocationTarget(String from, Resources need) {
        for (NodeEntry other : ledger.nodes()) {
            if (!other.name().equals(from) && other.accepts(need)) {
                return other.name();
            }
        }
        return null;
    }
}
