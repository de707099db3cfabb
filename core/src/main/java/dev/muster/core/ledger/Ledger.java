package dev.muster.core.ledger;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The truth about capacity: every node's allocatable, every pod holding resources on a node (bound by
 * this scheduler, by another one, or placed by hand with {@code spec.nodeName}), binds we made that the
 * cluster has not confirmed yet (assumed), and the slots gangs hold (reservations).
 *
 * <p><b>Ownership.</b> Not thread-safe by itself: it is owned by
 * {@link dev.muster.core.scheduler.GangScheduler}, whose single lock guards every field here and every
 * object reachable from it ({@link NodeEntry}, {@link Reservation}, {@link Slot}). Everything that leaves
 * the lock is an immutable copy ({@link NodeSnapshot}, {@link PodRecord}).
 *
 * <p><b>Parts.</b> {@link NodeEntries} keeps the node entries (by name and by id), {@link PodHolds} the room held for
 * pending single pods, {@link SetAside} the room set aside for the gang next in line, {@link QueueHolds} what each queue
 * holds; {@link LedgerAudit} checks the books against the records. All share this ledger's confinement.
 *
 * <p><b>Overcommit is a state.</b> Observations are recorded even when "impossible": a pod on an unknown node creates
 * that node's entry (not schedulable until the Node is seen), a node whose use exceeds allocatable is
 * {@linkplain NodeEntry#overcommitted() overcommitted} (no new placements, recovers as use falls), and no
 * arithmetic here throws on shortage.
 *
 * <p><b>Lifecycle of capacity.</b>
 * <pre>
 *   reserve(plan) ─▶ slot FREE ─▶ EARMARKED ─▶ CLAIMED ─consume─▶ PodRecord(assumed) ─observed─▶ PodRecord
 *        │                 └──────── releaseSlot / releaseReservation ◀───────┘             │
 *        └─ moveSlot (the reservation stays whole)                    removePod ◀── deleted / finished
 * </pre>
 */
public final class Ledger {
    private final NodeEntries nodes = new NodeEntries();
    private final Map<String, PodRecord> pods = new HashMap<>();
    private final Set<String> leaving = new java.util.HashSet<>(); // uids of recorded pods being evicted for a preemptor
    private final Map<GangKey, Reservation> reservations = new HashMap<>();
    private final QueueHolds queueHolds = new QueueHolds(); // used + reserved per queue, and the queues that gave room back
    private Resources schedulableAllocatable = Resources.ZERO; // Σ allocatable of known, schedulable nodes, kept as nodes change
    private final PodHolds holds = new PodHolds(nodes::entryFor, nodes::dropIfGone); // room held for pending single pods
    private final SetAside aside = new SetAside(nodes::entryFor, nodes::get, nodes::dropIfGone); // for the gang next in line

    // ---- nodes -------------------------------------------------------------------------------------

    /** Records a node's allocatable and schedulability (which may shrink or grow at any time). */
    public NodeEntry upsertNode(Node node) {
        NodeEntry e = nodes.entryFor(node.name());
        Resources before = schedulableShare(e);
        e.observe(node.allocatable(), node.schedulable(), node.labels(), node.taints(), node.preferNoSchedule());
        schedulableAllocatable = schedulableAllocatable.minus(before).plus(schedulableShare(e));
        return e;
    }

    /**
     * Forgets a node. Pods and slots still recorded on it keep their accounting on a placeholder entry
     * (not schedulable) until they leave, so nothing is lost if the Node comes back.
     */
    public void removeNode(String name) {
        NodeEntry e = nodes.get(name);
        if (e == null) {
            return;
        }
        schedulableAllocatable = schedulableAllocatable.minus(schedulableShare(e));
        e.forget();
        nodes.dropIfGone(e);
    }

    static Resources schedulableShare(NodeEntry e) {
        return e.known() && e.schedulable() ? e.allocatable() : Resources.ZERO;
    }

    /** The allocatable of every known, schedulable node: the cluster that fair shares divide (O(1)). */
    public Resources schedulableAllocatable() {
        return schedulableAllocatable;
    }

    /** Free, unreserved room on the nodes that take placements ({@link NodeEntry#takesPlacements}); O(nodes). */
    public Resources freeRoom() {
        Resources.Builder free = Resources.builder(); // one sum, not a new vector per node: the admission pass asks every tick
        for (NodeEntry e : nodes.values()) {
            if (e.takesPlacements()) {
                free.add(e.free());
            }
        }
        return free.build();
    }

    public NodeEntry node(String name) {
        return nodes.get(name);
    }

    /**
     * The entry of the candidate {@code candidates.get(index)}, or null when the ledger has none: read by id from an
     * array when the list carries ids (a {@link NodeList}, as the request decoder builds), else looked up by name. The
     * filter asks this for every candidate of every pod.
     */
    public NodeEntry candidate(List<String> candidates, int index) {
        return nodes.candidate(candidates, index);
    }

    /** Live entries in insertion order, for the planner and slot steering; never to leave the owner's lock. */
    public Collection<NodeEntry> nodes() {
        return nodes.values();
    }

    public int nodeCount() {
        return nodes.size();
    }

    // ---- pods --------------------------------------------------------------------------------------

    /** Records {@code record}, replacing an earlier record of the same pod (which may be on another node). */
    public void putPod(PodRecord record) {
        holds.placed(record.pod().uid(), record.node()); // the pod holds its own room now
        PodRecord old = pods.put(record.pod().uid(), record);
        boolean wasLeaving = old != null && leaving.contains(old.pod().uid());
        if (old != null) {
            unaccount(old);
        }
        nodes.entryFor(record.node()).addUsed(record.request());
        queueHolds.hold(record.queue(), record.request());
        if (wasLeaving) {
            markLeaving(record.pod().uid()); // a confirmation or a move of a pod on its way out: it still is
        }
    }

    /** How many records each gang holds (O(pods); the gangs' own counts are checked against it). */
    public Map<GangKey, Integer> recordsByGang() {
        Map<GangKey, Integer> out = new HashMap<>();
        for (PodRecord r : pods.values()) {
            if (r.gang() != null) {
                out.merge(r.gang(), 1, Integer::sum);
            }
        }
        return out;
    }

    /** Removes the pod's record; returns it, or null if the pod held nothing. */
    public PodRecord removePod(String uid) {
        PodRecord old = pods.remove(uid);
        if (old != null) {
            unaccount(old);
        }
        return old;
    }

    private void unaccount(PodRecord r) {
        NodeEntry e = nodes.get(r.node());
        boolean wasLeaving = leaving.remove(r.pod().uid());
        if (!wasLeaving) {
            queueHolds.unhold(r.queue(), r.request()); // a leaving pod's queue stopped holding it when it was marked
        }
        if (e != null) {
            if (wasLeaving) {
                e.removeLeaving(r.request());
            }
            e.removeUsed(r.request());
            nodes.dropIfGone(e);
        }
    }

    public PodRecord pod(String uid) {
        return pods.get(uid);
    }

    public int podCount() {
        return pods.size();
    }

    /** Every record, read-only (iterate under the owner's lock only; the records themselves are immutable). */
    public Collection<PodRecord> records() {
        return Collections.unmodifiableCollection(pods.values());
    }

    /**
     * The recorded pod is being evicted for a preemptor whose slots hold its room from now on: its node's reservations are
     * not broken by it while it terminates, and its queue no longer holds it ({@link #heldByQueue}: every share,
     * capability and verdict check counts it gone). Its record (and its node's use) stays until the cluster shows it
     * gone. False when not recorded or already leaving.
     */
    public boolean markLeaving(String uid) {
        PodRecord r = pods.get(uid);
        if (r == null || !leaving.add(uid)) {
            return false;
        }
        nodes.entryFor(r.node()).addLeaving(r.request());
        queueHolds.unhold(r.queue(), r.request());
        queueHolds.freed(r.queue());
        return true;
    }

    /** The pod is no longer on its way out (its decision ended before it was evicted): its queue holds it again. */
    public void unmarkLeaving(String uid) {
        PodRecord r = pods.get(uid);
        if (r != null && leaving.remove(uid)) {
            nodes.entryFor(r.node()).removeLeaving(r.request());
            queueHolds.hold(r.queue(), r.request());
        }
    }

    /** Whether the recorded pod is being evicted for a preemptor. */
    public boolean isLeaving(String uid) {
        return leaving.contains(uid);
    }

    /** Uids of the records a bind of ours created and the cluster has not confirmed yet. */
    public List<String> assumedPods() {
        List<String> out = new ArrayList<>();
        for (PodRecord r : pods.values()) {
            if (r.assumed()) {
                out.add(r.pod().uid());
            }
        }
        return out;
    }

    /** Room held for pending pods that are not gang members ({@link PodHolds}). */
    public PodHolds holds() {
        return holds;
    }

    // ---- reservations ------------------------------------------------------------------------------

    /** A placement decided by the planner: one slot per entry. */
    public record Placement(String node, Resources request, String task) {}

    /**
     * Holds {@code placements} for {@code gang}, whole. The caller (the planner) has checked that each
     * fits; any earlier reservation of the gang is released first.
     */
    public Reservation reserve(GangKey gang, String queue, long deadlineNanos, List<Placement> placements) {
        return reserve(gang, queue, deadlineNanos, placements, null);
    }

    /**
     * As {@link #reserve(GangKey, String, long, List)}, confined to a topology domain ({@code required}, or null for
     * anywhere): slot steering never moves or adds a slot outside it.
     */
    public Reservation reserve(GangKey gang, String queue, long deadlineNanos, List<Placement> placements, Domain required) {
        releaseReservation(gang);
        Reservation r = new Reservation(gang, queue, deadlineNanos, required);
        for (Placement p : placements) {
            addSlot(r, p);
        }
        reservations.put(gang, r);
        return r;
    }

    /** Adds one slot to a held reservation (a member that arrived after the plan); returns it. */
    public Slot addSlot(Reservation r, Placement p) {
        Slot s = new Slot(p.node(), p.request(), p.task());
        r.add(s);
        nodes.entryFor(p.node()).addReserved(p.request());
        queueHolds.hold(r.queue(), p.request());
        if (!reservations.containsKey(r.gang())) {
            reservations.put(r.gang(), r);
        }
        return s;
    }

    public Reservation reservation(GangKey gang) {
        return reservations.get(gang);
    }

    /** The reservations held now (a copy of the list; the reservations themselves are live and lock-confined). */
    public List<Reservation> reservations() {
        return List.copyOf(reservations.values());
    }

    /**
     * Sets room aside on these nodes for {@code gang}, the gang next in line that does not fit yet, replacing any
     * earlier set-aside: nobody else may place on it, but it is charged to no queue and binds nothing. The gang
     * takes it (and more) when it fits and is reserved.
     */
    public void setAside(GangKey gang, List<Placement> placements) {
        aside.set(gang, placements);
    }

    /** The room set aside for the gang next in line, or null. */
    public Reservation setAside() {
        return aside.reservation();
    }

    /** Whether room on {@code node} is set aside for the gang next in line (constant time: filter asks per node). */
    public boolean setsAsideOn(String node) {
        return aside.on(node);
    }

    /** Gives the set-aside room back (the line decides anew who is next). */
    public void releaseSetAside() {
        aside.release();
    }

    public int reservationCount() {
        return reservations.size();
    }

    /** Releases every slot of the gang's reservation; returns it (now detached), or null. */
    public Reservation releaseReservation(GangKey gang) {
        Reservation r = reservations.remove(gang);
        if (r != null) {
            for (Slot s : new ArrayList<>(r.slots())) {
                unreserve(r, s);
                r.remove(s);
            }
        }
        return r;
    }

    /** Releases one slot (the rest of the reservation stays). */
    public void releaseSlot(Reservation r, Slot s) {
        if (r.remove(s)) {
            unreserve(r, s);
        }
        dropIfEmpty(r);
    }

    /** Sets the slot aside for the pod {@code uid} (filter chose its node for that pod). */
    public void earmark(Slot s, String uid) {
        s.earmark(uid);
    }

    /** The pod {@code uid} binds into the slot. */
    public void claim(Slot s, String uid) {
        s.claim(uid);
    }

    /** The slot stays reserved for the gang but is no longer tied to a pod. */
    public void vacate(Slot s) {
        s.free();
    }

    /** Moves a slot to {@code node}; the caller has checked that the node accepts it. */
    public void moveSlot(Reservation r, Slot s, String node) {
        unreserve(r, s);
        s.moveTo(node);
        nodes.entryFor(node).addReserved(s.request());
        queueHolds.hold(r.queue(), s.request());
    }

    /** Turns a claimed slot into the pod's (assumed) record: reserved becomes used, atomically. */
    public void consumeSlot(Reservation r, Slot s, PodRecord record) {
        if (r.remove(s)) {
            unreserve(r, s, false);
            // the pod uses what its slot reserved: room and quota are unchanged, nothing was given back — unless the pod
            // takes less than its slot held, elsewhere, or under another queue
            if (!record.node().equals(s.node()) || !record.queue().equals(r.queue()) || !s.request().fitsIn(record.request())) {
                queueHolds.freed(r.queue());
            }
        }
        putPod(record);
        dropIfEmpty(r);
    }

    private void dropIfEmpty(Reservation r) {
        if (r.slots().isEmpty() && reservations.get(r.gang()) == r) {
            reservations.remove(r.gang());
        }
    }

    private void unreserve(Reservation r, Slot s) {
        unreserve(r, s, true);
    }

    /** {@code givesBack}: the room and quota leave the gang (counted for {@link #takeFreed}), not handed to its pod. */
    private void unreserve(Reservation r, Slot s, boolean givesBack) {
        if (givesBack) {
            queueHolds.freed(r.queue());
        }
        queueHolds.unhold(r.queue(), s.request());
        NodeEntry e = nodes.get(s.node());
        if (e != null) {
            e.removeReserved(s.request());
            nodes.dropIfGone(e);
        }
    }

    /**
     * The queues whose reservations gave room back (a slot released or moved off its node, a member bound with less than
     * its slot held; not a member bound into its slot, which only turns reserved room into used) since the last call, and
     * forgets them: reserved room on nodes and the queue's quota both shrank, which kube-scheduler never hears of.
     * Empty when none did. The set-aside is not counted (it is recomputed on every admission pass).
     */
    public Set<String> takeFreed() {
        return queueHolds.takeFreed();
    }

    /** What a queue holds: requests of its pods on nodes (those {@linkplain #markLeaving leaving} excepted) plus its gangs' reserved slots. */
    public Resources heldByQueue(String queue) {
        return queueHolds.of(queue);
    }

    // ---- reads -------------------------------------------------------------------------------------

    public int overcommittedCount() {
        int n = 0;
        for (NodeEntry e : nodes.values()) {
            if (e.known() && e.overcommitted()) {
                n++;
            }
        }
        return n;
    }

    /** An immutable copy of the books, safe to hand out of the owner's lock. */
    public LedgerSnapshot snapshot() {
        List<PodRecord> records = new ArrayList<>(pods.values());
        List<LedgerSnapshot.ReservationSnapshot> held = new ArrayList<>(reservations.size());
        for (Reservation r : reservations.values()) {
            held.add(r.snapshot());
        }
        return new LedgerSnapshot(snapshots(), records, held, queueHolds.all(), holds.all());
    }

    public List<NodeSnapshot> snapshots() {
        List<NodeSnapshot> out = new ArrayList<>(nodes.size());
        for (NodeEntry e : nodes.values()) {
            out.add(e.snapshot());
        }
        return out;
    }

    /**
     * Recomputes every node's used and reserved from the records and compares: the empty list means the
     * books balance ({@link LedgerAudit}).
     */
    public List<String> checkInvariants() {
        return LedgerAudit.check(nodes, pods, leaving, reservations.values(), aside.reservation(), holds.all(), schedulableAllocatable,
                queueHolds.all());
    }
}
