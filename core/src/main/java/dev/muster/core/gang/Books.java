package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.Refusal;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Everything the scheduling core knows, in one place: the {@link Ledger} (capacity), the pods (latest
 * observation of each), the gangs, the queues, the binds in flight, and the {@link Outbox}. Each part of the
 * core ({@code GangAdmission}, the bind parts, {@code GangExpiry}, cluster intake, filtering) works on
 * these books; none keeps state of its own that another part reads.
 *
 * <p><b>Ownership.</b> Not thread-safe: created and owned by
 * {@link dev.muster.core.scheduler.GangScheduler}, whose single lock guards this object and everything
 * reachable from it. Nothing here may be touched without that lock, and nothing live leaves it.
 */
public final class Books {
    private final Ledger ledger = new Ledger();
    private final Map<String, Pod> pods = new HashMap<>(); // uid → latest observation (pending or bound)
    private final Map<GangKey, Gang> gangs = new HashMap<>();
    private final Map<String, QueueSpec> queues = new HashMap<>();
    private final Outbox outbox;
    private final PodBinds binds;
    private final LongSupplier nanoTime;
    private long arrivals; // numbers gangs in the order they were first named
    private final Map<String, QuotaAside> quotaAside = new HashMap<>(); // queue → quota kept for its first waiting gang
    private final Map<String, Long> heldSince = new HashMap<>(); // uid → when its record was made (this process's clock)
    private final SingleHolders singles = new SingleHolders(); // single pods holding room, for preemption
    private final OfferedNodes offered = new OfferedNodes();
    private final QueueGate queueGate;
    private final GateBooks gates = new GateBooks();

    /** Queue quota kept for the gang first in line for its queue's capability ({@link AdmissionPass}). */
    public record QuotaAside(GangKey gang, Resources amount) {}

    public Books(Outbox outbox, LongSupplier nanoTime) {
        this(outbox, nanoTime, QueueGate.OFF);
    }

    public Books(Outbox outbox, LongSupplier nanoTime, QueueGate queueGate) {
        this.outbox = outbox;
        this.binds = new PodBinds(outbox);
        this.nanoTime = nanoTime;
        this.queueGate = queueGate;
    }

    /** The queue-admission gate's settings. */
    public QueueGate queueGate() {
        return queueGate;
    }

    /** The queue-admission gate's books: quota held by lifted gangs, lifts sent ({@link GateLifts}). */
    public GateBooks gates() {
        return gates;
    }

    /** The core's clock (monotonic nanoseconds). */
    public long now() {
        return nanoTime.getAsLong();
    }

    public Ledger ledger() {
        return ledger;
    }

    /** The latest observation of the pod (pending or bound), or null. */
    public Pod pod(String uid) {
        return pods.get(uid);
    }

    /** The pod {@code namespace/name}, or null: O(pods), for rare look-ups only (a leader change's records name pods so). */
    public Pod podNamed(String namespace, String name) {
        for (Pod p : pods.values()) {
            if (p.id().name().equals(name) && p.id().namespace().equals(namespace)) {
                return p;
            }
        }
        return null;
    }

    public boolean hasPod(String uid) {
        return pods.containsKey(uid);
    }

    /** Records the latest observation of a pod; returns the one it replaces, or null. */
    public Pod putPod(Pod p) {
        Pod old = pods.put(p.uid(), p);
        if (singles.contains(p.uid())) {
            singles.put(p.uid(), p.schedulerName(), p.priority(), heldSince(p.uid())); // its scheduler or priority now known
        }
        return old;
    }

    /** Forgets the pod's observation; returns it, or null. */
    public Pod removePod(String uid) {
        offered.forget(uid);
        return pods.remove(uid);
    }

    /** The nodes kube-scheduler last offered pods with constraints Muster does not judge itself. */
    public OfferedNodes offered() {
        return offered;
    }

    /**
     * When the pod's record was made, on the core's clock (a pod found bound when this process started counts from
     * then); {@code Long.MIN_VALUE} when it holds nothing.
     */
    public long heldSince(String uid) {
        Long t = heldSince.get(uid);
        return t == null ? Long.MIN_VALUE : t;
    }

    /** The single pods that hold room, by scheduler and priority (read under the core's lock only). */
    public SingleHolders singles() {
        return singles;
    }

    /** Every gang known, read-only (iterate under the core's lock only). */
    public java.util.Collection<Gang> gangs() {
        return java.util.Collections.unmodifiableCollection(gangs.values());
    }

    public int gangCount() {
        return gangs.size();
    }

    /** Every pod's bind (the one owner of a pod's bind state). */
    public PodBinds binds() {
        return binds;
    }

    /**
     * Whether the gang is admitted: it holds a reservation or runs. A gang with a PodGroup that is not admitted is
     * waiting for admission (if it has members and is not backing off: {@link WaitingLine#waiting}).
     */
    public boolean admitted(Gang g) {
        return g.running() || ledger.reservation(g.key()) != null;
    }

    /**
     * Whether the gang's run is over or being ended by a preemption: it runs, and either none of its members holds room
     * any more (the run ends as soon as the last one's going is settled), or some are on their way out for a preemptor
     * ({@link Ledger#markLeaving}) and those that stay are fewer than minMember. A new member (one its Job made again)
     * does not join such a run as a single pod would: that would leave a part of the gang running once the evictions are
     * over. It waits, and the gang assembles anew, whole, once its evicted members are gone.
     */
    public boolean runEnding(Gang g) {
        if (!g.running() || g.spec() == null) {
            return false;
        }
        if (g.bound() == 0) {
            return true;
        }
        int leaving = 0;
        for (Pod m : g.members()) {
            if (ledger.isLeaving(m.uid())) {
                leaving++;
            }
        }
        return leaving > 0 && g.bound() - leaving < g.minMember();
    }

    public Gang gang(GangKey key) {
        return gangs.get(key);
    }

    /** The gang's bookkeeping, created when first named (by a pod, a bind or its PodGroup). */
    public Gang gangOf(GangKey key) {
        return gangs.computeIfAbsent(key, k -> new Gang(k, ++arrivals));
    }

    public QueueSpec queue(String name) {
        return queues.get(name);
    }

    /** Every queue known, read-only (iterate under the core's lock only). */
    public java.util.Collection<QueueSpec> queues() {
        return java.util.Collections.unmodifiableCollection(queues.values());
    }

    public void putQueue(QueueSpec q) {
        queues.put(q.name(), q);
    }

    public void removeQueue(String name) {
        queues.remove(name);
    }

    public Outbox outbox() {
        return outbox;
    }

    /**
     * Whether {@code queue} admits {@code request} more, given what it already holds, the quota kept for the gang
     * first in line for the queue's capability, and the quota of gangs whose gate was lifted ({@link GateBooks}).
     */
    public QueueAdmission.Verdict queueVerdict(String queue, Resources request) {
        return queueVerdict(queue, request, null);
    }

    /** Like {@link #queueVerdict(String, Resources)} for a request of {@code asking}, which may use quota kept for it. */
    public QueueAdmission.Verdict queueVerdict(String queue, Resources request, GangKey asking) {
        return queueVerdict(queue, request, asking, Resources.ZERO);
    }

    /** Like {@link #queueVerdict(String, Resources, GangKey)} with {@code going} (victims of this queue) counted gone. */
    public QueueAdmission.Verdict queueVerdict(String queue, Resources request, GangKey asking, Resources going) {
        Resources held = ledger.heldByQueue(queue).minus(going);
        QuotaAside aside = quotaAside.get(queue);
        if (aside != null && !aside.gang().equals(asking)) {
            held = held.plus(aside.amount());
        }
        Resources lifted = gates.heldFor(queue, asking, this);
        if (!lifted.isZero()) {
            held = held.plus(lifted);
        }
        return QueueAdmission.check(queue, queues.get(queue), held, request);
    }

    /** Keeps {@code amount} of the queue's quota for {@code gang} (which waits for the queue's capability). */
    public void keepQuota(String queue, GangKey gang, Resources amount) {
        quotaAside.put(queue, new QuotaAside(gang, amount));
    }

    /** The quota kept in {@code queue}, or null. */
    public QuotaAside quotaKept(String queue) {
        return quotaAside.get(queue);
    }

    /** Forgets all kept quota (each pass decides anew). */
    public void releaseQuota() {
        quotaAside.clear();
    }

    /** Moves the gang to {@code state} and journals the change. */
    public void state(Gang g, GangState state, Refusal why) {
        outbox.emit(g.to(state, why));
    }

    /** A pod now holds resources ({@code r} was just recorded in the ledger): count it, journal it, settle its gang. */
    public void allocated(PodRecord r) {
        long now = nanoTime.getAsLong();
        heldSince.putIfAbsent(r.pod().uid(), now);
        Pod p = pods.get(r.pod().uid());
        if (r.gang() == null) {
            singles.put(r.pod().uid(), p == null ? "" : p.schedulerName(), p == null ? 0 : p.priority(), heldSince(r.pod().uid()));
        } else {
            singles.remove(r.pod().uid());
        }
        Gang g = r.gang() == null ? null : gangs.get(r.gang());
        if (g != null) {
            g.boundChanged(1, now);
        }
        outbox.emit(new AllocationEvent.PodAllocated(r.pod(), r.gang(), r.queue(), r.node(), r.request()));
        if (g != null) {
            settle(g, null);
        }
    }

    /**
     * A pod no longer holds resources ({@code r} was just removed from the ledger): count it and journal it. The
     * caller settles the gang when the step is done ({@link #removeAllocation} does both).
     */
    public void deallocated(PodRecord r) {
        if (ledger.pod(r.pod().uid()) == null) {
            heldSince.remove(r.pod().uid());
            singles.remove(r.pod().uid());
        }
        if (r.gang() != null) {
            Gang g = gangs.get(r.gang());
            if (g != null) {
                g.boundChanged(-1, 0);
            }
        }
        outbox.emit(new AllocationEvent.PodReleased(r.pod(), r.gang(), r.queue(), r.node(), r.request()));
    }

    /**
     * The pod {@code uid} no longer holds resources, because it {@code how} (e.g. "was deleted"): its record leaves
     * the ledger, is journalled, and its gang is settled. Returns the record, or null when it held none.
     */
    public PodRecord removeAllocation(String uid, String how) {
        PodRecord r = ledger.removePod(uid);
        if (r == null) {
            return null;
        }
        deallocated(r);
        Gang g = r.gang() == null ? null : gangs.get(r.gang());
        if (g != null) {
            settle(g, "pod " + r.pod() + " " + how);
        }
        return r;
    }

    /**
     * Decides a gang whose barrier opened (it runs): BOUND once minMember members are placed ({@link Gang#placed()}:
     * holding resources, or bound and succeeded since); reported short
     * (UNSCHEDULABLE, cause BIND_FAILED) as soon as it is still RESERVED — opened, not BOUND yet — and the members
     * placed plus the Bindings still unanswered can no longer reach minMember. Kubernetes has no multi-pod binding, so
     * this runs after every change of a running gang's bound or in-flight count: a member bound, a Binding failed, a
     * pod deleted or finished, an assumed record expired, minMember raised. {@code lost} names what was lost, for the
     * report; null when nothing was (then only BOUND is decided, in O(1): the scan of the members that the short check
     * needs runs only after a loss, so a gang of thousands opening costs no scan per member bound).
     */
    public void settle(Gang g, String lost) {
        if (!g.running() || g.spec() == null) {
            return;
        }
        if (g.placed() >= g.minMember() && g.placed() > 0) {
            state(g, GangState.BOUND, Refusal.note(g.placed() + " members bound together"));
            return;
        }
        if (lost == null || g.state() != GangState.RESERVED) {
            return; // nothing lost (a member bound cannot lower what is reachable), or short already, or BOUND before
        }
        int reachable = g.placed() + bindingsUnanswered(g);
        if (reachable < g.minMember()) {
            state(g, GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.BIND_FAILED, "gang " + g.key() + ": only "
                    + reachable + "/" + g.minMember() + " members could be bound: " + lost + "; the bound members keep their places and a replacement member joins them"));
        }
    }

    /**
     * The gangs' books against the ledger, as {@link Ledger#checkInvariants()} checks the ledger's own: each gang's
     * bound count is the number of its records; a running gang is BOUND once minMember members hold resources, and
     * is reported RESERVED ("binding together") only while Bindings still unanswered can complete it. Empty when
     * they balance.
     */
    public List<String> checkGangInvariants() {
        List<String> problems = new ArrayList<>(binds.checkInvariants());
        // the ledger's half of a bind follows PodBinds: an assumed record is a bind under way, made, or expected; a
        // claimed slot is a bind waiting at its barrier or under way
        for (String uid : ledger.assumedPods()) {
            PodBinds.Stage st = binds.stageOf(uid);
            if (st != PodBinds.Stage.BINDING && st != PodBinds.Stage.BOUND && st != PodBinds.Stage.EXPECTED) {
                problems.add("pod " + uid + " has an assumed record but its bind is " + st);
            }
        }
        for (Reservation res : ledger.reservations()) {
            for (Slot s : res.slots()) {
                PodBinds.Stage st = s.state() == Slot.State.CLAIMED ? binds.stageOf(s.podUid()) : PodBinds.Stage.WAITING;
                if (st != PodBinds.Stage.WAITING && st != PodBinds.Stage.BINDING) {
                    problems.add("slot " + s + " of gang " + res.gang() + " is claimed but its pod's bind is " + st);
                }
            }
        }
        Map<GangKey, Integer> records = ledger.recordsByGang();
        for (GangKey k : records.keySet()) {
            if (!gangs.containsKey(k)) {
                problems.add("the ledger holds " + records.get(k) + " records of gang " + k + ", which is forgotten");
            }
        }
        for (Gang g : gangs.values()) {
            int held = records.getOrDefault(g.key(), 0);
            if (g.bound() != held) {
                problems.add("gang " + g.key() + " counts " + g.bound() + " members bound, the ledger holds " + held);
            }
            Reservation r = ledger.reservation(g.key());
            java.util.Set<String> slotted = new java.util.HashSet<>();
            for (Slot s : r == null ? List.<Slot>of() : r.slots()) {
                if (s.podUid() != null && !slotted.add(s.podUid())) {
                    problems.add("pod " + s.podUid() + " holds two slots of gang " + g.key());
                }
            }
            for (PodBinds.Bind w : binds.of(g.key(), PodBinds.Stage.WAITING)) {
                Slot s = r == null ? null : r.slotOf(w.pod().uid());
                if (s == null || s.state() != Slot.State.CLAIMED) {
                    problems.add("bind of " + w.pod() + " waits at gang " + g.key() + "'s barrier without a claimed slot");
                }
            }
            if (!g.running() && g.spec() != null && r == null && (g.state() == GangState.RESERVED || g.state() == GangState.ADMITTED)) {
                problems.add("gang " + g.key() + " is " + g.state() + " but holds no reservation and does not run");
            }
            if (!g.running() || g.spec() == null) {
                continue;
            }
            if (g.placed() >= g.minMember() && g.placed() > 0 && g.state() != GangState.BOUND) {
                problems.add("gang " + g.key() + " runs with " + g.placed() + "/" + g.minMember() + " placed but is " + g.state());
            }
            int unanswered = bindingsUnanswered(g);
            if (g.state() == GangState.RESERVED && g.placed() + unanswered < g.minMember()) {
                problems.add("gang " + g.key() + " is reported binding together with " + g.placed() + " placed and "
                        + unanswered + " Bindings unanswered of minMember " + g.minMember());
            }
        }
        return problems;
    }

    /**
     * Members whose Binding POST is under way and which the cluster does not show bound yet: each member is counted
     * once, in {@link Gang#bound()} or here (the watch may show a member bound before its Binding answers); a member
     * deleted meanwhile cannot be bound and is not counted.
     */
    private int bindingsUnanswered(Gang g) {
        int n = 0;
        for (Pod m : g.members()) {
            if (binds.inFlight(m.uid()) && ledger.pod(m.uid()) == null && pods.containsKey(m.uid())) {
                n++;
            }
        }
        return n;
    }

    /** The pod's slot, if any, goes back to the cluster (the gang no longer needs that room). */
    public void releaseSlotOf(GangKey key, String uid) {
        Reservation r = ledger.reservation(key);
        Slot s = r == null ? null : r.slotOf(uid);
        if (s != null) {
            ledger.releaseSlot(r, s);
        }
    }

    /** The pod's slot, if any, stays reserved for the gang but is no longer tied to the pod. */
    public void vacateSlotOf(GangKey key, String uid) {
        Reservation r = ledger.reservation(key);
        Slot s = r == null ? null : r.slotOf(uid);
        if (s != null) {
            ledger.vacate(s);
        }
    }

    /** Drops the gang's bookkeeping once nothing refers to it any more. */
    public void forgetIfDone(Gang g) {
        if (g.isEmpty() && !binds.anyFor(g.key()) && ledger.reservation(g.key()) == null && g.bound() == 0) {
            gangs.remove(g.key());
        }
    }
}
