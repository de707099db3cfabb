package dev.muster.core.ledger;

import dev.muster.core.model.GangKey;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The room the {@link Ledger} sets aside for the gang next in line that does not fit yet ({@link Ledger#setAside}): its
 * slots count reserved on their nodes, so nobody else places there, but it is charged to no queue and binds nothing; at
 * most one at a time. Not thread-safe: confined to the ledger owner's lock.
 */
final class SetAside {
    private final Function<String, NodeEntry> entryFor;
    private final Function<String, NodeEntry> existing;
    private final Consumer<NodeEntry> released;
    private Reservation reservation; // the room set aside (charged to no queue), or null
    private Set<String> nodes = Set.of(); // the nodes of its slots (its slots never change), for filter

    /**
     * @param entryFor the node's entry, made if need be; {@code existing}: the node's entry or null; {@code released}: told
     *                 of an entry some of whose reserved room was given back (it may no longer stand for anything)
     */
    SetAside(Function<String, NodeEntry> entryFor, Function<String, NodeEntry> existing, Consumer<NodeEntry> released) {
        this.entryFor = entryFor;
        this.existing = existing;
        this.released = released;
    }

    /** See {@link Ledger#setAside(GangKey, List)}. */
    void set(GangKey gang, List<Ledger.Placement> placements) {
        release();
        if (placements.isEmpty()) {
            return;
        }
        Reservation r = new Reservation(gang, "", Long.MAX_VALUE, null);
        for (Ledger.Placement p : placements) {
            r.add(new Slot(p.node(), p.request(), p.task()));
            entryFor.apply(p.node()).addReserved(p.request());
        }
        reservation = r;
        nodes = r.slots().stream().map(Slot::node).collect(Collectors.toUnmodifiableSet());
    }

    /** The room set aside, or null. */
    Reservation reservation() {
        return reservation;
    }

    /** Whether room on {@code node} is set aside (constant time). */
    boolean on(String node) {
        return nodes.contains(node);
    }

    /** Gives the room back. */
    void release() {
        Reservation r = reservation;
        reservation = null;
        nodes = Set.of();
        if (r == null) {
            return;
        }
        for (Slot s : r.slots()) {
            NodeEntry e = existing.apply(s.node());
            if (e != null) {
                e.removeReserved(s.request());
                released.accept(e);
            }
        }
    }
}
