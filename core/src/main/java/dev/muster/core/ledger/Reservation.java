package dev.muster.core.ledger;

import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Capacity held for one gang: its slots, the queue charged for them, and the deadline by which the
 * gang's binds must reach {@code minMember}. Mutable, confined to the ledger owner's lock. Created by
 * {@link Ledger#reserve}; slots leave it when consumed (bound), released, or with the whole reservation.
 */
public final class Reservation {
    private final GangKey gang;
    private final String queue;
    private final long deadlineNanos;
    private final List<Slot> slots = new ArrayList<>();
    private final Domain required; // null: the slots may be anywhere

    Reservation(GangKey gang, String queue, long deadlineNanos, Domain required) {
        this.gang = gang;
        this.queue = queue;
        this.deadlineNanos = deadlineNanos;
        this.required = required;
    }

    /** The topology domain every slot must stay inside (a required topology constraint), or null. */
    public Domain requiredDomain() {
        return required;
    }

    public GangKey gang() {
        return gang;
    }

    public String queue() {
        return queue;
    }

    public long deadlineNanos() {
        return deadlineNanos;
    }

    /** Live, read-only view; valid only under the owner's lock. */
    public List<Slot> slots() {
        return Collections.unmodifiableList(slots);
    }

    public Resources total() {
        Resources sum = Resources.ZERO;
        for (Slot s : slots) {
            sum = sum.plus(s.request());
        }
        return sum;
    }

    /** The slot earmarked for or claimed by {@code podUid}, or null. */
    public Slot slotOf(String podUid) {
        for (Slot s : slots) {
            if (podUid.equals(s.podUid())) {
                return s;
            }
        }
        return null;
    }

    LedgerSnapshot.ReservationSnapshot snapshot() {
        List<LedgerSnapshot.SlotSnapshot> copy = new ArrayList<>(slots.size());
        for (Slot s : slots) {
            copy.add(new LedgerSnapshot.SlotSnapshot(s.node(), s.request(), s.task(), s.state(), s.podUid()));
        }
        return new LedgerSnapshot.ReservationSnapshot(gang, queue, deadlineNanos, copy);
    }

    void add(Slot s) {
        slots.add(s);
    }

    boolean remove(Slot s) {
        return slots.remove(s);
    }
}
