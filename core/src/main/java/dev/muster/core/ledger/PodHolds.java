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
 */
public final class PodHolds {
    /** Who freed the room. */
    public enum Source {
        /** Muster's own preemption decision for the pod: it passes the filter only on this node. */
        MUSTER,
        /** kube-scheduler's preemption ({@code status.nominatedNodeName}): the node is kept for it; it may still go elsewhere. */
        NOMINATED
    }

    /** The room held for pod {@code uid} on {@code node}. */
    public record Hold(String uid, String node, Resources request, Source source) {
        public Hold {
            Objects.requireNonNull(uid, "uid");
            Objects.requireNonNull(node, "node");
            Objects.requireNonNull(request, "request");
            Objects.requireNonNull(source, "source");
        }
    }

    private final Map<String, Hold> byUid = new HashMap<>();
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

    /** Every hold (a copy). */
    public List<Hold> all() {
        return new ArrayList<>(byUid.values());
    }

    public int size() {
        return byUid.size();
    }
}
