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
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Everything the scheduling core knows, in one place: the {@link Ledger} (capacity), the pods (latest
 * observation of each), the gangs, the queues, the binds in flight, and the {@link Outbox}. Each part of the
 * core ({@code GangAdmission}, {@code BindBarrier}, {@code GangExpiry}, cluster intake, filtering) works on
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
    private final Set<String> bindsInFlight = new HashSet<>(); // uids whose Binding POST is under way
    private final Outbox outbox;
    private final LongSupplier nanoTime;
    private long arrivals; // numbers gangs in the order they were first named
    private final Map<String, QuotaAside> quotaAside = new HashMap<>(); // queue → quota kept for its first waiting gang

    /** Queue quota kept for the gang first in line for its queue's capability ({@link AdmissionPass}). */
    public record QuotaAside(GangKey gang, Resources amount) {}

    public Books(Outbox outbox, LongSupplier nanoTime) {
        this.outbox = outbox;
        this.nanoTime = nanoTime;
    }

    /** The core's clock (monotonic nanoseconds). */
    public long now() {
        return nanoTime.getAsLong();
    }

    public Ledger ledger() {
        return ledger;
    }

    /** Latest observation of each pod, by uid. */
    public Map<String, Pod> pods() {
        return pods;
    }

    public Map<GangKey, Gang> gangs() {
        return gangs;
    }

    public Gang gang(GangKey key) {
        return gangs.get(key);
    }

    /** The gang's bookkeeping, created when first named (by a pod, a bind or its PodGroup). */
    public Gang gangOf(GangKey key) {
        return gangs.computeIfAbsent(key, k -> new Gang(k, ++arrivals));
    }

    public Map<String, QueueSpec> queues() {
        return queues;
    }

    public Set<String> bindsInFlight() {
        return bindsInFlight;
    }

    public Outbox outbox() {
        return outbox;
    }

    /**
     * Whether {@code queue} admits {@code request} more, given what it already holds and the quota kept for the gang
     * first in line for the queue's capability.
     */
    public QueueAdmission.Verdict queueVerdict(String queue, Resources request) {
        return queueVerdict(queue, request, null);
    }

    /** Like {@link #queueVerdict(String, Resources)} for a request of {@code asking}, which may use quota kept for it. */
    public QueueAdmission.Verdict queueVerdict(String queue, Resources request, GangKey asking) {
        Resources held = ledger.heldByQueue(queue);
        QuotaAside aside = quotaAside.get(queue);
        if (aside != null && !aside.gang().equals(asking)) {
            held = held.plus(aside.amount());
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

    /** A pod now holds resources ({@code r} was just recorded in the ledger): count it and journal it. */
    public void allocated(PodRecord r) {
        if (r.gang() != null) {
            Gang g = gangs.get(r.gang());
            if (g != null) {
                g.boundChanged(1);
                if (g.running() && g.spec() != null && g.bound() >= g.minMember() && g.bound() > 0) {
                    state(g, GangState.BOUND, Refusal.note(g.bound() + " members bound together"));
                }
            }
        }
        outbox.emit(new AllocationEvent.PodAllocated(r.pod(), r.gang(), r.queue(), r.node(), r.request()));
    }

    /** A pod no longer holds resources ({@code r} was just removed from the ledger): count it and journal it. */
    public void deallocated(PodRecord r) {
        if (r.gang() != null) {
            Gang g = gangs.get(r.gang());
            if (g != null) {
                g.boundChanged(-1);
            }
        }
        outbox.emit(new AllocationEvent.PodReleased(r.pod(), r.gang(), r.queue(), r.node(), r.request()));
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
        if (g.isEmpty() && ledger.reservation(g.key()) == null && g.bound() == 0) {
            gangs.remove(g.key());
        }
    }
}
