package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.ledger.SlotSteering;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.Refusal;
import dev.muster.core.queue.QueueAdmission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * The bind path: single pods bind at once; a gang member claims its slot and waits at its gang's barrier
 * until {@code minMember} members are bound or waiting, then all waiting members are bound together. A member
 * whose gang cannot be admitted yet has its bind <em>held</em> ({@link HeldBind}) and retried on every change
 * that may admit the gang. Binding POSTs go out through the {@link Binder} after the lock is released; their
 * answers come back under the lock ({@code underLock}).
 *
 * <p><b>What Muster guarantees while a gang's Bindings are in flight</b> (Kubernetes has no multi-pod binding
 * transaction): the barrier opens only for members whose pods exist; BOUND is reported only when minMember
 * members hold resources; a member whose Binding fails releases its slot at once and, if the gang can no longer
 * reach minMember, the gang is reported UNSCHEDULABLE (cause BIND_FAILED) — the bound members keep their places
 * and a replacement member joins them like a single pod. {@link Books#settle} makes that decision after every
 * change of the gang's bound or in-flight count. A Binding that succeeded but is never confirmed by the
 * cluster (the pod was deleted in between, and the delete was seen first) does not hold room: such assumed
 * records are dropped after {@link #CONFIRM_WITHIN}, as kube-scheduler's cache expires assumed pods.
 *
 * <p>Confined to the core's lock ({@link Books}); owns {@code holding}, {@code unconfirmed} and {@code expected}.
 */
public final class BindBarrier {
    /** How long a bind we made may stay unconfirmed by the cluster before its room is given back. */
    public static final Duration CONFIRM_WITHIN = Duration.ofSeconds(30);

    private static final System.Logger LOG = System.getLogger(BindBarrier.class.getName());

    private final Books books;
    private final Ledger ledger;
    private final GangAdmission admission;
    private final SlotSteering steering;
    private final Binder binder;
    private final Duration admissionHold;
    private final Consumer<Runnable> underLock;
    private final Set<GangKey> holding = new HashSet<>(); // gangs with held binds (Gang.held() not empty)
    // uid → when our assumed record must be confirmed; each entry leaves at the first expireUnconfirmed after the cluster
    // confirms it or CONFIRM_WITHIN passes, so it holds at most the pods bound or expected in the last CONFIRM_WITHIN
    private final Map<String, Long> unconfirmed = new HashMap<>();
    private final Set<String> expected = new HashSet<>(); // uids assumed by expectBind for kube-scheduler to bind (⊆ unconfirmed)

    /**
     * @param underLock runs an action under the core's lock (answers of the Binder arrive on other threads)
     */
    public BindBarrier(Books books, GangAdmission admission, SlotSteering steering, Binder binder, Duration admissionHold,
                       Consumer<Runnable> underLock) {
        this.books = books;
        this.ledger = books.ledger();
        this.admission = admission;
        this.steering = steering;
        this.binder = binder;
        this.admissionHold = admissionHold;
        this.underLock = underLock;
    }

    /**
     * Binds {@code podId} to {@code node}; see {@link dev.muster.core.scheduler.GangScheduler#bind}. The future
     * is completed through the outbox, never under the lock.
     */
    public CompletableFuture<BindResult> bind(PodId podId, String node, long now) {
        CompletableFuture<BindResult> result = new CompletableFuture<>();
        Pod p = books.pods().get(podId.uid());
        if (p == null) {
            result.complete(BindResult.failed("pod " + podId + " (uid " + podId.uid() + ") is unknown to muster: it was never filtered or observed"));
            return result;
        }
        PodRecord existing = ledger.pod(p.uid());
        if (existing != null && expected.remove(p.uid()) && existing.assumed()) {
            // filter assumed kube-scheduler would bind it itself, yet it asks Muster to (a configuration whose one
            // extender binds every pod): bind it for real, never answer "bound" for a record no Binding made
            books.removeAllocation(p.uid(), "is bound through the bind verb after all");
            existing = null;
        }
        if (existing != null) {
            result.complete(existing.node().equals(node) ? BindResult.BOUND
                    : BindResult.failed("pod " + podId + " is already bound to " + existing.node()));
            return result;
        }
        if (books.bindsInFlight().contains(p.uid())) {
            result.complete(BindResult.failed("pod " + podId + " is being bound already"));
            return result;
        }
        if (p.gang() == null) {
            bindSingle(p, node, "", result);
            return result;
        }
        Gang g = books.gangOf(p.gang());
        if (g.spec() == null || (!g.running() && ledger.reservation(g.key()) == null)) {
            hold(g, p, node, result, now);
        } else {
            bindMember(g, p, node, result);
        }
        return result;
    }

    /** Admits the gang (see {@link GangAdmission#reserve}); on success its held binds take the normal path. */
    public Refusal admit(Gang g, long now) {
        Refusal why = admission.reserve(g, now);
        if (why == null) {
            adoptHeld(g);
        }
        return why;
    }

    /** A member of a gang that is reserved or already runs: claim its slot and wait at the barrier. */
    private void bindMember(Gang g, Pod p, String node, CompletableFuture<BindResult> result) {
        Reservation r = ledger.reservation(g.key());
        Slot slot = r == null ? null : steering.claim(r, p.uid(), p.task(), p.request(), node);
        if (slot == null) {
            if (g.running()) {
                if (books.queueVerdict(g.queue(), p.request(), g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
                    result.complete(BindResult.failed("gang " + g.key() + ": " + refused.reason()));
                } else {
                    bindSingle(p, node, g.queue(), result);
                }
            } else {
                result.complete(BindResult.failed(r == null
                        ? "gang " + g.key() + " holds no reservation (" + (g.reason().isEmpty() ? g.state().name() : g.reason()) + ")"
                        : "gang " + g.key() + " holds no slot for pod " + p.id() + " on node " + node + " and the node has no room to move one there"));
            }
            return;
        }
        if (g.running()) {
            startBinding(g, p, node, result);
            return;
        }
        BindWaiter previous = g.waiters().put(p.uid(), new BindWaiter(p.id(), node, result));
        if (previous != null) {
            books.outbox().complete(previous.result(), BindResult.failed("replaced by a newer bind of the same pod"));
        }
        openIfReady(g);
    }

    // ---- held binds: members whose gang could not be admitted when kube-scheduler asked ---------------

    private void hold(Gang g, Pod p, String node, CompletableFuture<BindResult> result, long now) {
        HeldBind previous = g.held().put(p.uid(), new HeldBind(new BindWaiter(p.id(), node, result), now + admissionHold.toNanos()));
        if (previous != null) {
            books.outbox().complete(previous.waiter().result(), BindResult.failed("replaced by a newer bind of the same pod"));
        }
        holding.add(g.key());
        admitHeld(g, now);
    }

    /** Tries to admit a gang with held binds (they are pinned to their nodes); no-op while it cannot be. */
    public void admitHeld(Gang g, long now) {
        if (g.held().isEmpty()) {
            holding.remove(g.key());
            return;
        }
        if (g.spec() == null) {
            return;
        }
        if (!g.running() && ledger.reservation(g.key()) == null) {
            Refusal why = admit(g, now);
            if (why != null && GangAdmission.Outlook.of(why) != GangAdmission.Outlook.HOLD) {
                failHeld(g, why.text(), Long.MAX_VALUE);
            }
            return;
        }
        adoptHeld(g);
    }

    /** The gang is reserved (or runs): every held bind takes the normal path — a slot, then the barrier. */
    private void adoptHeld(Gang g) {
        if (g.held().isEmpty()) {
            return;
        }
        List<HeldBind> todo = new ArrayList<>(g.held().values());
        g.held().clear();
        holding.remove(g.key());
        for (HeldBind h : todo) {
            Pod p = books.pods().get(h.waiter().pod().uid());
            if (p == null) {
                books.outbox().complete(h.waiter().result(), BindResult.failed("pod " + h.waiter().pod() + " was deleted"));
            } else {
                bindMember(g, p, h.waiter().node(), h.waiter().result());
            }
        }
    }

    /** Fails the held binds whose hold ends by {@code until} (all: Long.MAX_VALUE), with {@code reason}. */
    private void failHeld(Gang g, String reason, long until) {
        for (var it = g.held().values().iterator(); it.hasNext(); ) {
            HeldBind h = it.next();
            if (until - h.untilNanos() >= 0) {
                it.remove();
                books.outbox().complete(h.waiter().result(), BindResult.failed(reason));
            }
        }
        if (g.held().isEmpty()) {
            holding.remove(g.key());
        }
    }

    /**
     * Gangs with held binds that were admitted (or run) meanwhile: their held binds take the normal path. The
     * {@link AdmissionPass} decides which gangs are admitted; this only hands over their binds.
     */
    void adoptHeldOfAdmitted() {
        for (GangKey k : new ArrayList<>(holding)) {
            Gang g = books.gang(k);
            if (g == null || g.held().isEmpty()) {
                holding.remove(k);
            } else if (g.running() || ledger.reservation(k) != null) {
                adoptHeld(g);
            }
        }
    }

    /** The gangs with held binds (a copy). */
    List<Gang> holdingGangs() {
        List<Gang> out = new ArrayList<>(holding.size());
        for (GangKey k : holding) {
            Gang g = books.gang(k);
            if (g != null) {
                out.add(g);
            }
        }
        return out;
    }

    /** Fails every held bind of the gang with {@code reason} (it cannot be admitted as things stand). */
    void failHeld(Gang g, String reason) {
        failHeld(g, reason, Long.MAX_VALUE);
    }

    /** Fails the held binds whose hold has ended, each with its gang's current reason. */
    public void endDueHolds(long now) {
        for (GangKey k : new ArrayList<>(holding)) {
            Gang g = books.gang(k);
            if (g != null) {
                failHeld(g, heldReason(g, now), now);
            }
        }
    }

    private static String heldReason(Gang g, long now) {
        if (g.spec() == null) {
            return "podgroup " + g.key() + " does not exist (yet)";
        }
        Refusal backingOff = GangAdmission.backoff(g, now);
        if (backingOff != null) {
            return backingOff.text();
        }
        return g.reason().isEmpty() ? "gang " + g.key() + " could not be admitted yet" : g.reason();
    }

    /** Withdraws a waiting or held bind (its caller went away): the pod's slot is vacated for another try. */
    public void cancel(PodId podId) {
        Pod p = books.pods().get(podId.uid());
        Gang g = p == null || p.gang() == null ? null : books.gang(p.gang());
        if (g == null) {
            return;
        }
        BindWaiter w = g.waiters().remove(podId.uid());
        if (w != null) {
            books.outbox().complete(w.result(), BindResult.failed("bind cancelled by the caller"));
            books.vacateSlotOf(g.key(), podId.uid());
        }
        HeldBind h = g.held().remove(podId.uid());
        if (h != null) {
            books.outbox().complete(h.waiter().result(), BindResult.failed("bind cancelled by the caller"));
        }
    }

    /** A member is gone (deleted or finished): its waiting or held bind fails with {@code reason}. */
    public void memberGone(Gang g, String uid, String reason) {
        BindWaiter w = g.waiters().remove(uid);
        if (w != null) {
            books.outbox().complete(w.result(), BindResult.failed(reason));
        }
        HeldBind h = g.held().remove(uid);
        if (h != null) {
            books.outbox().complete(h.waiter().result(), BindResult.failed(reason));
        }
    }

    /** The cluster shows the pod bound to {@code node}: a bind waiting for it learns the outcome. */
    public void boundByCluster(Gang g, Pod pod) {
        BindWaiter w = g.waiters().remove(pod.uid());
        if (w != null) {
            books.outbox().complete(w.result(), w.node().equals(pod.nodeName()) ? BindResult.BOUND
                    : BindResult.failed("pod " + pod.id() + " was bound to " + pod.nodeName() + " by someone else"));
        }
    }

    /** Fails the waiting bind on a slot that must move (pods muster did not place took its node). */
    public void slotTaken(Gang g, String uid, String node) {
        BindWaiter w = g.waiters().remove(uid);
        if (w != null) {
            books.outbox().complete(w.result(), BindResult.failed("gang " + g.key() + ": the slot on " + node
                    + " was taken by a pod muster did not place; retry"));
        }
    }

    /**
     * Opens the barrier when minMember members are bound or waiting: every waiting member whose pod still exists
     * is bound; a waiter whose pod is gone fails (and the barrier stays shut if that leaves too few).
     */
    public void openIfReady(Gang g) {
        if (g.running()) {
            return;
        }
        for (var it = g.waiters().values().iterator(); it.hasNext(); ) {
            BindWaiter w = it.next();
            if (!books.pods().containsKey(w.pod().uid())) {
                it.remove();
                books.outbox().complete(w.result(), BindResult.failed("pod " + w.pod() + " was deleted"));
                books.vacateSlotOf(g.key(), w.pod().uid());
            }
        }
        if (g.bound() + g.waiters().size() < g.minMember()) {
            return;
        }
        books.outbox().emit(g.open(g.bound() + g.waiters().size()));
        List<BindWaiter> ready = new ArrayList<>(g.waiters().values());
        g.waiters().clear();
        for (BindWaiter w : ready) {
            startBinding(g, books.pods().get(w.pod().uid()), w.node(), w.result());
        }
    }

    /** A gang member with a claimed slot: POST the binding; the slot is consumed when it succeeds. */
    private void startBinding(Gang g, Pod p, String node, CompletableFuture<BindResult> result) {
        GangKey key = g.key();
        books.bindsInFlight().add(p.uid());
        books.outbox().later(() -> binder.bind(p.id(), node).whenComplete((ok, err) -> underLock.accept(() -> {
            books.bindsInFlight().remove(p.uid());
            if (err == null) {
                memberBound(key, p, node);
                books.outbox().complete(result, BindResult.BOUND);
            } else {
                memberLost(key, p, "failed to bind (" + messageOf(err) + ")");
                books.outbox().complete(result, BindResult.failed(messageOf(err)));
            }
        })));
    }

    /**
     * A member of a gang whose barrier opened will not be bound: its Binding POST failed (typically: the pod was
     * deleted meanwhile), or it succeeded for a pod deleted while it was in flight. Its room is released at once;
     * if the gang can no longer reach minMember with what is bound and in flight, it is reported short — never
     * BOUND — and a replacement member joins the running members later.
     */
    private void memberLost(GangKey key, Pod p, String what) {
        books.releaseSlotOf(key, p.uid());
        Gang g = books.gang(key);
        if (g != null) {
            books.settle(g, "pod " + p.id() + " " + what);
        }
    }

    private void memberBound(GangKey key, Pod p, String node) {
        if (ledger.pod(p.uid()) != null) {
            return; // the cluster showed it bound before the binder answered; already accounted
        }
        if (!books.pods().containsKey(p.uid())) {
            // deleted while its Binding was in flight: recording it now would hold phantom capacity
            memberLost(key, p, "was deleted while its Binding was in flight");
            return;
        }
        Gang g = books.gang(key);
        String queue = g == null ? "" : g.queue();
        PodRecord record = new PodRecord(p.id(), node, p.request(), key, queue, true);
        Reservation r = ledger.reservation(key);
        Slot s = r == null ? null : r.slotOf(p.uid());
        if (s != null) {
            ledger.consumeSlot(r, s, record);
        } else {
            ledger.putPod(record);
        }
        books.allocated(record);
        awaitConfirmation(p.uid());
    }

    private void bindSingle(Pod p, String node, String queue, CompletableFuture<BindResult> result) {
        NodeEntry e = ledger.node(node);
        String why = e == null ? "node " + node + " is not known to muster yet" : e.whyNot(p.request());
        if (why != null) {
            result.complete(BindResult.failed("node " + node + " can no longer take pod " + p.id() + ": " + why));
            return;
        }
        PodRecord record = new PodRecord(p.id(), node, p.request(), p.gang(), queue, true);
        ledger.putPod(record);
        books.allocated(record);
        books.bindsInFlight().add(p.uid());
        books.outbox().later(() -> binder.bind(p.id(), node).whenComplete((ok, err) -> underLock.accept(() -> {
            books.bindsInFlight().remove(p.uid());
            if (err != null) {
                PodRecord r = ledger.pod(p.uid());
                if (r != null && r.assumed()) {
                    books.removeAllocation(p.uid(), "failed to bind (" + messageOf(err) + ")");
                }
                books.outbox().complete(result, BindResult.failed(messageOf(err)));
            } else {
                awaitConfirmation(p.uid());
                books.outbox().complete(result, BindResult.BOUND);
            }
        })));
    }

    /**
     * kube-scheduler binds {@code p}, a single pod, itself (it does not ask Muster's bind verb for it), and Muster's
     * filter left it one node: hold the pod's room there as an assumed record, as kube-scheduler's cache assumes
     * the pod, so the next decisions see it taken before the cluster shows it bound. The record is confirmed when the
     * cluster shows the pod on that node (moved when on another), and dropped after {@link #CONFIRM_WITHIN} if the
     * cluster never does, or at once when the pod is filtered again ({@link #forgetExpected}).
     */
    public void expectBind(Pod p, String node) {
        if (ledger.node(node) == null || ledger.pod(p.uid()) != null) {
            return;
        }
        PodRecord record = new PodRecord(p.id(), node, p.request(), null, "", true);
        ledger.putPod(record);
        books.allocated(record);
        expected.add(p.uid());
        unconfirmed.put(p.uid(), books.now() + CONFIRM_WITHIN.toNanos());
    }

    /**
     * A single pod is filtered again, so kube-scheduler did not bind it where {@link #expectBind} assumed (a later
     * plugin or the Binding failed): its assumed room is given back before the new decision.
     */
    public void forgetExpected(String uid) {
        if (!expected.remove(uid)) {
            return; // the usual case, a pod filtered for the first time: no ledger lookup
        }
        PodRecord r = ledger.pod(uid);
        if (r != null && r.assumed()) {
            books.removeAllocation(uid, "was filtered again: kube-scheduler did not bind it to " + r.node());
        }
    }

    private void awaitConfirmation(String uid) {
        PodRecord r = ledger.pod(uid);
        if (r != null && r.assumed()) {
            unconfirmed.put(uid, books.now() + CONFIRM_WITHIN.toNanos());
        }
    }

    /**
     * Drops records of binds we made that the cluster has not confirmed within {@link #CONFIRM_WITHIN}: the pod
     * is gone or was never bound, and the room it held would otherwise be lost until a restart.
     */
    public void expireUnconfirmed(long now) {
        for (var it = unconfirmed.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            PodRecord r = ledger.pod(e.getKey());
            if (r == null || !r.assumed()) {
                it.remove(); // confirmed, or already gone
                expected.remove(e.getKey());
            } else if (now - e.getValue() >= 0) {
                it.remove();
                expected.remove(e.getKey());
                books.removeAllocation(e.getKey(), "was bound by muster but never shown bound by the cluster");
                LOG.log(System.Logger.Level.WARNING, "pod {0} was bound by muster to {1} but the cluster has not shown it bound"
                        + " within {2}s; its room is given back", r.pod(), r.node(), CONFIRM_WITHIN.toSeconds());
            }
        }
    }

    /**
     * Fails every waiting and held bind of the gang and releases its reservation, except slots whose Binding POST
     * is under way (those pods are being bound right now).
     */
    public void dropReservation(Gang g, String reason) {
        for (BindWaiter w : g.waiters().values()) {
            books.outbox().complete(w.result(), BindResult.failed(reason));
        }
        g.waiters().clear();
        failHeld(g, reason, Long.MAX_VALUE);
        Reservation r = ledger.reservation(g.key());
        if (r == null) {
            return;
        }
        boolean inFlight = false;
        for (Slot s : r.slots()) {
            inFlight |= s.podUid() != null && books.bindsInFlight().contains(s.podUid());
        }
        if (!inFlight) {
            ledger.releaseReservation(g.key());
            return;
        }
        for (Slot s : new ArrayList<>(r.slots())) {
            if (s.podUid() == null || !books.bindsInFlight().contains(s.podUid())) {
                ledger.releaseSlot(r, s);
            }
        }
    }

    /** Binds held now, over all gangs. */
    public int heldCount() {
        int n = 0;
        for (GangKey k : holding) {
            Gang g = books.gang(k);
            n += g == null ? 0 : g.held().size();
        }
        return n;
    }

    private static String messageOf(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }
}
