package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.ledger.SlotSteering;
import dev.muster.core.model.Pod;
import dev.muster.core.model.Refusal;
import dev.muster.core.queue.QueueAdmission;
import java.util.ArrayList;
import java.util.concurrent.CompletableFuture;

/**
 * A gang's barrier: a member of a reserved gang claims its slot and waits ({@link PodBinds.Stage#WAITING}) until
 * {@code minMember} members are bound or waiting; then every waiting member's Binding goes out together
 * ({@link Bindings}). Also every way a waiting bind leaves without being bound — its pod gone, its slot taken, the
 * caller gone, the reservation dropped, leadership lost — each through {@link PodBinds#fail}, with the slot vacated or
 * released here.
 *
 * <p><b>What Muster guarantees while a gang's Bindings are in flight</b> (Kubernetes has no multi-pod binding
 * transaction): the barrier opens only for members whose pods exist; BOUND is reported only when minMember members
 * hold resources; a member whose Binding fails releases its slot at once and, if the gang can no longer reach
 * minMember, the gang is reported UNSCHEDULABLE (cause BIND_FAILED) — the bound members keep their places and a
 * replacement member joins them like a single pod. Confined to the core's lock ({@link Books}).
 */
public final class BindBarrier {
    private final Books books;
    private final Ledger ledger;
    private final PodBinds binds;
    private final SlotSteering steering;
    private final Bindings bindings;

    public BindBarrier(Books books, SlotSteering steering, Bindings bindings) {
        this.books = books;
        this.ledger = books.ledger();
        this.binds = books.binds();
        this.steering = steering;
        this.bindings = bindings;
    }

    /**
     * A member of a gang that is reserved or runs: claims its slot on {@code node} and waits at the barrier (a gang that
     * runs binds it at once). Returns false, with nothing changed, when the gang does not run and no slot can be claimed
     * on {@code node} in Muster's view (Muster's view may be behind kube-scheduler's), or when the gang's run is being
     * ended by a preemption ({@link Books#runEnding}): the caller holds the bind.
     */
    boolean join(Gang g, Pod p, String node, CompletableFuture<BindResult> caller) {
        Reservation r = ledger.reservation(g.key());
        Slot slot = r == null ? null : steering.claim(r, p.uid(), p.task(), p.request(), node);
        if (slot == null) {
            if (!g.running() || books.runEnding(g)) {
                return false;
            }
            if (books.queueVerdict(g.queue(), p.request(), g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
                books.outbox().complete(caller, BindResult.failed("gang " + g.key() + ": " + refused.reason()));
            } else {
                bindings.single(p, node, g.queue(), caller);
            }
            return true;
        }
        if (g.running()) {
            bindings.member(g, p, node, caller);
            return true;
        }
        binds.await(g.key(), p.id(), node, caller);
        openIfReady(g);
        return true;
    }

    /**
     * Opens the barrier when minMember members are bound or waiting: every waiting member whose pod still exists
     * is bound; a waiter whose pod is gone fails (and the barrier stays shut if that leaves too few).
     */
    public void openIfReady(Gang g) {
        if (g.running()) {
            return;
        }
        for (PodBinds.Bind w : binds.of(g.key(), PodBinds.Stage.WAITING)) {
            if (!books.hasPod(w.pod().uid())) {
                fail(g, w.pod().uid(), "pod " + w.pod() + " was deleted");
            }
        }
        int waiting = binds.count(g.key(), PodBinds.Stage.WAITING);
        if (g.bound() + waiting < g.minMember() || waiting == 0) {
            return;
        }
        books.outbox().emit(g.open(g.bound() + waiting));
        // each member moves to BINDING before any POST is queued, so a failure half-way leaves none of them waiting
        // with a slot nobody will bind
        for (PodBinds.Bind w : binds.open(g.key())) {
            bindings.opened(g, books.pod(w.pod().uid()), w.node(), callerOf(w));
        }
    }

    private CompletableFuture<BindResult> callerOf(PodBinds.Bind w) {
        return binds.callerOf(w.pod().uid());
    }

    /**
     * The waiting bind of pod {@code uid} fails with {@code reason} and its slot is vacated (it stays reserved for the
     * gang, for another try). The one way a waiting bind leaves without being bound.
     */
    public void fail(Gang g, String uid, String reason) {
        if (binds.fail(uid, reason) == PodBinds.Stage.WAITING) {
            books.vacateSlotOf(g.key(), uid);
        }
    }

    /** The cluster shows the pod bound: a bind waiting for it learns the outcome. */
    public void boundByCluster(Pod pod) {
        PodBinds.Bind w = binds.of(pod.uid());
        if (w != null && w.stage() == PodBinds.Stage.WAITING) {
            binds.answer(pod.uid(), w.node().equals(pod.nodeName()) ? BindResult.BOUND
                    : BindResult.failed("pod " + pod.id() + " was bound to " + pod.nodeName() + " by someone else"));
        }
    }

    /** Fails the waiting bind on a slot that must move (pods muster did not place took its node). */
    public void slotTaken(Gang g, String uid, String node) {
        fail(g, uid, "gang " + g.key() + ": the slot on " + node + " was taken by a pod muster did not place; retry");
    }

    /**
     * Fails every waiting and held bind of the gang and releases its reservation, except slots whose Binding POST
     * is under way (those pods are being bound right now). The caller moves the gang's state on.
     */
    public void dropReservation(Gang g, Refusal why) {
        binds.failAll(g.key(), PodBinds.Stage.WAITING, why.text(), Long.MAX_VALUE);
        binds.failAll(g.key(), PodBinds.Stage.HELD, why.text(), Long.MAX_VALUE);
        Reservation r = ledger.reservation(g.key());
        if (r != null) {
            boolean inFlight = false;
            for (Slot s : r.slots()) {
                inFlight |= s.podUid() != null && binds.inFlight(s.podUid());
            }
            if (!inFlight) {
                ledger.releaseReservation(g.key());
            } else {
                for (Slot s : new ArrayList<>(r.slots())) {
                    if (s.podUid() == null || !binds.inFlight(s.podUid())) {
                        ledger.releaseSlot(r, s);
                    }
                }
            }
        }
    }

    /**
     * Leadership is lost: every waiting and held bind fails at once with {@code reason} (their slots are vacated), so
     * no caller waits on a process that no longer decides. Bindings already POSTed finish as they will.
     */
    public void leadershipLost(String reason) {
        for (PodBinds.Bind b : binds.failEverything(reason)) {
            if (b.stage() == PodBinds.Stage.WAITING && b.gang() != null) {
                books.vacateSlotOf(b.gang(), b.pod().uid());
            }
        }
    }

    /** Withdraws a waiting or held bind (its caller went away): the pod's slot is vacated for another try. */
    public void cancel(Pod p) {
        Gang g = p.gang() == null ? null : books.gang(p.gang());
        if (g != null) {
            fail(g, p.uid(), "bind cancelled by the caller");
        }
    }
}
