package dev.muster.core.ledger;

import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Room held on one node for one pending pod that is not a gang member: the room a preemption freed for it, kept for it
 * until it binds. Its request counts {@linkplain NodeEntry#reserved() reserved} on its node, so no gang is admitted or
 * steered there, no other single pod passes the filter there, and no preemption plans on it; the pod itself passes only
 * there ({@code Filtering}) and its bind counts the hold as free ({@code Bindings}). The hold ends when the pod's record
 * is put (it binds: {@link Ledger#putPod}), or when its owner releases it. Confined to the ledger owner's lock.
 *
 * <p><b>Whom a nomination's hold keeps out.</b> As kube-scheduler counts a nominated pod on its node only against pods
 * of equal or lower priority, a {@link Source#NOMINATED} hold keeps out only those: a pod or gang of strictly higher
 * priority may plan on its room ({@link #yieldingTo}). Whoever takes it then calls {@link #giveWay}: the holds of lower
 * priority on an over-full node are released, lowest priority first, and their pods are not held there again for the
 * same nomination ({@link #gaveWay}; kube-scheduler nominates afresh if it preempts for them again). A hold of Muster's own
 * decision ({@link Source#MUSTER}) keeps everyone out.
 */
public final class PodHolds {
    /** Who freed the room. */
    public enum Source {
        /** Muster's own preemption decision for the pod: it passes the filter only on this node. */
        MUSTER,
        /** kube-scheduler's preemption ({@code status.nominatedNodeName}): the node is kept for it; it may still go elsewhere. */
        NOMINATED
    }

    /** The room held for pod {@code uid} (of {@code priority}) on {@code node}. */
    public record Hold(String uid, String node, Resources request, Source source, int priority) {
        public Hold {
            Objects.requireNonNull(uid, "uid");
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(source, "source");
        }
    }

    private final Map<String, Hold> byUid = new HashMap<>();
    private final Map<String, String> gaveWay = new HashMap<>(); // pod uid → the node whose nominated room it gave way on
    private final java.util.Set<String> tookHeldRoom = new java.util.HashSet<>(); // pods placed on the room Muster's decision held
    private final Function<String, NodeEntry> entryFor;
    private final Consumer<NodeEntry> released;

    /** {@code entryFor}: the node's entry, created if needed; {@code released}: told of an entry that lost a hold. */
    PodHolds(Function<String, NodeEntry> entryFor, Consumer<NodeEntry> released) {
        this.entryFor = entryFor;
        this.released = released;
    }

    /** Holds {@code h}'s room, replacing any earlier hold of the same pod. */
    public void hold(Hold h) {
        release(h.uid());
        gaveWay.remove(h.uid());
        byUid.put(h.uid(), h);
        entryFor.apply(h.node()).addReserved(h.request());
    }

    /** Releases the pod's hold; returns it, or null when it held none. */
    public Hold release(String uid) {
        Hold h = byUid.remove(uid);
        if (h != null) {
            NodeEntry e = entryFor.apply(h.node());
            e.removeReserved(h.request());
            released.accept(e);
        }
        return h;
    }

    /** The pod's hold, or null. */
    public Hold of(String uid) {
        return byUid.get(uid);
    }

    /**
     * Per node, the room of nominations that keep out only pods of lower priority than {@code priority} — room free for
     * it to plan on. Empty when none (the common case).
     */
    public Map<String, Resources> yieldingTo(int priority) {
        Map<String, Resources> out = null;
        for (Hold h : byUid.values()) {
            if (h.source() == Source.NOMINATED && h.priority() < priority) {
                if (out == null) {
                    out = new HashMap<>();
                }
                out.merge(h.node(), h.request(), Resources::plus);
            }
        }
        return out == null ? Map.of() : out;
    }

    /**
     * A pod or gang of {@code priority} just took room on {@code node}: while the node is over-full (beyond what leaves
     * it for a preemptor), nominations of lower priority there give way, lowest priority first. Returns those released.
     */
    public List<Hold> giveWay(String node, int priority) {
        NodeEntry e = entryFor.apply(node);
        List<Hold> out = new ArrayList<>();
        if (overFull(e)) {
            List<Hold> lower = new ArrayList<>();
            for (Hold h : byUid.values()) {
                if (h.node().equals(node) && h.source() == Source.NOMINATED && h.priority() < priority) {
                    lower.add(h);
                }
            }
            lower.sort(java.util.Comparator.comparingInt(Hold::priority).thenComparing(Hold::uid));
            for (Hold h : lower) {
                if (!overFull(e)) {
                    break;
                }
                release(h.uid());
                gaveWay.put(h.uid(), node);
                out.add(h);
            }
        }
        return out;
    }

    /**
     * Whether {@code request}, of a pod or gang member of {@code priority}, may be placed on {@code e} now, counting the
     * room of nominations of lower priority there as free.
     */
    public boolean accepts(NodeEntry e, Resources request, int priority) {
        return e.accepts(request) || fitsWithYielded(e, e.free(), request, priority);
    }

    /** Whether {@code request} fits in {@code free} on {@code e} plus the room nominations of lower priority yield there. */
    private boolean fitsWithYielded(NodeEntry e, Resources free, Resources request, int priority) {
        if (!e.takesPlacements() || byUid.isEmpty()) {
            return false;
        }
        Resources yielded = yieldingTo(priority).get(e.name());
        return yielded != null && request.fitsIn(free.plus(yielded));
    }

    /**
     * As {@link #accepts}, for pod {@code uid} itself: the room held for it on {@code e}, if any, counts as free. Its
     * hold stays until its record is put ({@link Ledger#putPod}), which ends it.
     */
    public boolean acceptsHolder(NodeEntry e, String uid, Resources request, int priority) {
        Hold own = byUid.get(uid);
        if (own == null || !own.node().equals(e.name())) {
            return accepts(e, request, priority);
        }
        Resources free = e.free().plus(own.request());
        return e.takesPlacements() && request.fitsIn(free) || fitsWithYielded(e, free, request, priority);
    }

    private static boolean overFull(NodeEntry e) {
        return !e.inUse().minus(e.leaving()).fitsIn(e.allocatable());
    }

    /** Whether the pod's nominated room on {@code node} was taken by one of higher priority (it is not held there again). */
    public boolean gaveWay(String uid, String node) {
        return node.equals(gaveWay.get(uid));
    }

    /**
     * The pod's record was put on {@code node} ({@link Ledger#putPod}): its hold is released, and if Muster's own
     * decision held that node for it, that is remembered until its decision ends ({@link #tookHeldRoom}) — the pod may be
     * gone again before the decision is next looked at.
     */
    void placed(String uid, String node) {
        gaveWay.remove(uid);
        Hold h = release(uid);
        if (h != null && h.source() == Source.MUSTER && h.node().equals(node)) {
            tookHeldRoom.add(uid);
        }
    }

    /**
     * Whether the pod was placed on the room Muster's decision held for it since the hold was made; forgets it (the
     * decision's owner asks once, as the decision ends).
     */
    public boolean tookHeldRoom(String uid) {
        return tookHeldRoom.remove(uid);
    }

    /** The pod went, bound, or lost its nomination: its hold (if any) is released and what it gave way on forgotten. */
    public void forget(String uid) {
        gaveWay.remove(uid);
        release(uid);
    }

    /** Every hold (a copy). */
    public List<Hold> all() {
        return new ArrayList<>(byUid.values());
    }

    public int size() {
        return byUid.size();
    }
}
