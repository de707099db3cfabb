package dev.muster.core.ledger;

import dev.muster.core.resources.Resources;

/**
 * A place held for one member of a gang: {@code request} on {@code node}. Mutable, confined to the
 * ledger owner's lock; it changes only through {@link Ledger} ({@code earmark}, {@code claim}, {@code vacate},
 * {@code moveSlot}).
 *
 * <pre>
 *   FREE ──filter picks it for a pod──▶ EARMARKED(pod) ──bind of that pod──▶ CLAIMED(pod) ──bound──▶ (consumed: a PodRecord)
 *     ▲                                       │                                  │
 *     └──────── pod filtered elsewhere, bind fails, or the pod goes away ────────┘
 * </pre>
 */
public final class Slot {
    public enum State { FREE, EARMARKED, CLAIMED }

    private String node;
    private final Resources request;
    private final String task;
    private State state = State.FREE;
    private String podUid;

    Slot(String node, Resources request, String task) {
        this.node = node;
        this.request = request;
        this.task = task;
    }

    public String node() {
        return node;
    }

    public Resources request() {
        return request;
    }

    public String task() {
        return task;
    }

    public State state() {
        return state;
    }

    /** The pod this slot is earmarked for or claimed by; null when FREE. */
    public String podUid() {
        return podUid;
    }

    public boolean isFree() {
        return state == State.FREE;
    }

    /** Whether a pod of {@code task} with {@code podRequest} can use this slot. */
    public boolean fits(String podTask, Resources podRequest) {
        return (task.isEmpty() || task.equals(podTask)) && podRequest.fitsIn(request);
    }

    void earmark(String uid) {
        state = State.EARMARKED;
        podUid = uid;
    }

    void claim(String uid) {
        state = State.CLAIMED;
        podUid = uid;
    }

    void free() {
        state = State.FREE;
        podUid = null;
    }

    void moveTo(String newNode) {
        node = newNode;
    }

    @Override
    public String toString() {
        return "slot(" + node + ", " + request + (task.isEmpty() ? "" : ", task " + task) + ", " + state
                + (podUid == null ? "" : " " + podUid) + ")";
    }
}
