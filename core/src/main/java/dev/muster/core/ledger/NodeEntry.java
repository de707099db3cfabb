package dev.muster.core.ledger;

import dev.muster.core.resources.Resources;

/**
 * One node's accounting. Mutable, confined to the {@link Ledger}'s owner lock; outside code reads it
 * only while holding that lock, or through {@link NodeSnapshot}.
 *
 * <p>{@code used} is the sum of the requests of the pods recorded on the node (bound by anyone, or
 * assumed by us); {@code reserved} is the sum of the gang slots held on it. Both are recomputable from
 * the records, which is what {@link Ledger#checkInvariants()} does.
 */
public final class NodeEntry {
    private final String name;
    private Resources allocatable = Resources.ZERO;
    private boolean schedulable;
    private boolean known; // false: only referenced by pods so far (seen before its Node object, or deleted)
    private Resources used = Resources.ZERO;
    private Resources reserved = Resources.ZERO;
    private int pods;

    NodeEntry(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    public Resources allocatable() {
        return allocatable;
    }

    public Resources used() {
        return used;
    }

    public Resources reserved() {
        return reserved;
    }

    public int podCount() {
        return pods;
    }

    public boolean known() {
        return known;
    }

    public boolean schedulable() {
        return schedulable;
    }

    /** Observed use exceeds allocatable (seed 003): a state, not an error. No new placements until it falls. */
    public boolean overcommitted() {
        return !used.fitsIn(allocatable);
    }

    /** Capacity neither used nor reserved; negative amounts where the node is over-full. */
    public Resources free() {
        return allocatable.minus(used).minus(reserved);
    }

    /** Whether a new pod (or slot) with {@code request} may be placed here now. */
    public boolean accepts(Resources request) {
        return known && schedulable && !overcommitted() && request.fitsIn(free());
    }

    /** Reservations held here no longer fit beside what is used (allocatable shrank, or others took room). */
    public boolean reservationsBroken() {
        return !reserved.isZero() && !used.plus(reserved).fitsIn(allocatable);
    }

    void observe(Resources newAllocatable, boolean newSchedulable) {
        this.allocatable = newAllocatable;
        this.schedulable = newSchedulable;
        this.known = true;
    }

    void forget() {
        this.allocatable = Resources.ZERO;
        this.schedulable = false;
        this.known = false;
    }

    void addUsed(Resources r) {
        used = used.plus(r);
        pods++;
    }

    void removeUsed(Resources r) {
        used = used.minus(r);
        pods--;
    }

    void addReserved(Resources r) {
        reserved = reserved.plus(r);
    }

    void removeReserved(Resources r) {
        reserved = reserved.minus(r);
    }

    boolean isEmpty() {
        return pods == 0 && reserved.isZero();
    }

    NodeSnapshot snapshot() {
        return new NodeSnapshot(name, allocatable, used, reserved, pods, known, schedulable, overcommitted());
    }
}
