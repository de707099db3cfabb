package dev.muster.core.ledger;

import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import java.util.List;
import java.util.Map;

/**
 * An immutable copy of the {@link Ledger} at one moment: nodes, pod records, reservations with their slots,
 * what each queue holds, and the room held for pending single pods. This is what leaves the scheduling core's lock for
 * diagnostics and tests.
 */
public record LedgerSnapshot(List<NodeSnapshot> nodes, List<PodRecord> pods, List<ReservationSnapshot> reservations,
                             Map<String, Resources> heldByQueue, List<PodHolds.Hold> holds) {
    public LedgerSnapshot {
        nodes = List.copyOf(nodes);
        pods = List.copyOf(pods);
        reservations = List.copyOf(reservations);
        heldByQueue = Map.copyOf(heldByQueue);
        holds = holds == null ? List.of() : List.copyOf(holds);
    }

    /** A copy without pod holds. */
    public LedgerSnapshot(List<NodeSnapshot> nodes, List<PodRecord> pods, List<ReservationSnapshot> reservations,
                          Map<String, Resources> heldByQueue) {
        this(nodes, pods, reservations, heldByQueue, List.of());
    }

    /** The room held for pod {@code uid}, or null. */
    public PodHolds.Hold hold(String uid) {
        for (PodHolds.Hold h : holds) {
            if (h.uid().equals(uid)) {
                return h;
            }
        }
        return null;
    }

    /** A reservation's slots at the moment of the copy. */
    public record ReservationSnapshot(GangKey gang, String queue, long deadlineNanos, List<SlotSnapshot> slots) {
        public ReservationSnapshot {
            slots = List.copyOf(slots);
        }
    }

    /** One slot: where, how much, for which task, and the pod it is earmarked for or claimed by (null when free). */
    public record SlotSnapshot(String node, Resources request, String task, Slot.State state, String podUid) {}

    public Resources heldByQueue(String queue) {
        return heldByQueue.getOrDefault(queue, Resources.ZERO);
    }

    public ReservationSnapshot reservation(GangKey gang) {
        for (ReservationSnapshot r : reservations) {
            if (r.gang().equals(gang)) {
                return r;
            }
        }
        return null;
    }

    /** Nothing used and nothing reserved on any node. */
    public boolean empty() {
        for (NodeSnapshot n : nodes) {
            if (!n.used().isZero() || !n.reserved().isZero()) {
                return false;
            }
        }
        return true;
    }
}
