package dev.muster.core.gang;

import dev.muster.core.model.Pod;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Held binds ({@link PodBinds.Stage#HELD}): a member whose gang could not be admitted when kube-scheduler asked
 * (backing off, not fitting in Muster's view, PodGroup not seen yet), or whose reserved gang has no slot Muster can
 * claim on the node kube-scheduler chose (Muster's view of that node is behind kube-scheduler's). The bind holds no
 * slot; the gang is admitted again — the held members pinned to kube-scheduler's nodes — on every change that may
 * admit it, and a held member of an admitted gang tries its slot again, until the hold ends and the bind fails with
 * the reason. kube-scheduler always retries a pod whose bind failed, whereas a pod refused at filter may be parked
 * until an unrelated cluster event: so refusals whose cause may pass by itself become held binds. Confined to the
 * core's lock ({@link Books}).
 */
public final class HeldBinds {
    private final Books books;
    private final PodBinds binds;
    private final GangAdmission admission;
    private final BindBarrier barrier;
    private final AdmissionHold hold;

    public HeldBinds(Books books, GangAdmission admission, BindBarrier barrier, AdmissionHold hold) {
        this.books = books;
        this.hold = hold;
        this.binds = books.binds();
        this.admission = admission;
        this.barrier = barrier;
    }

    /** Holds the member's bind until {@code untilNanos} and tries to admit its gang at once. */
    void hold(Gang g, Pod p, String node, CompletableFuture<BindResult> caller, long untilNanos, long now) {
        binds.hold(g.key(), p.id(), node, caller, untilNanos);
        admitHeld(g, now);
    }

    /**
     * Admits the gang (see {@link GangAdmission#reserve}); on success its held binds join the barrier. Nothing is
     * admitted while admission is held ({@link AdmissionHold}).
     */
    public Refusal admit(Gang g, long now) {
        if (hold.held()) {
            return hold.refusal(g);
        }
        Refusal why = admission.reserve(g, now);
        if (why == null) {
            adopt(g, now);
        }
        return why;
    }

    /** Tries to admit a gang with held binds (they are pinned to their nodes); no-op while it cannot be. */
    public void admitHeld(Gang g, long now) {
        if (binds.count(g.key(), PodBinds.Stage.HELD) == 0 || g.spec() == null) {
            return;
        }
        if (!books.admitted(g)) {
            Refusal why = admit(g, now);
            if (why != null && GangAdmission.Outlook.of(why) != GangAdmission.Outlook.HOLD) {
                failHeld(g, why.text());
            }
            return;
        }
        adopt(g, now);
    }

    /**
     * The gang is reserved (or runs): every held bind joins the barrier. One that still finds no slot it can claim on
     * its node stays held until its hold ends.
     */
    private void adopt(Gang g, long now) {
        for (PodBinds.Bind h : binds.of(g.key(), PodBinds.Stage.HELD)) {
            String uid = h.pod().uid();
            Pod p = books.pod(uid);
            if (p == null) {
                binds.fail(uid, "pod " + h.pod() + " was deleted");
                continue;
            }
            CompletableFuture<BindResult> caller = binds.takeHeld(uid);
            if (!barrier.join(g, p, h.node(), caller)) {
                binds.hold(g.key(), h.pod(), h.node(), caller, h.untilNanos()); // same hold end: it does not start again
            }
        }
    }

    /**
     * Gangs with held binds that were admitted (or run) meanwhile: their held binds join the barrier. The
     * {@link AdmissionPass} decides which gangs are admitted; this only hands over their binds.
     */
    void adoptHeldOfAdmitted(long now) {
        for (GangKey k : binds.gangsHolding()) {
            Gang g = books.gang(k);
            if (g != null && books.admitted(g)) {
                adopt(g, now);
            }
        }
    }

    /** The gangs with held binds (a copy). */
    List<Gang> holdingGangs() {
        List<Gang> out = new ArrayList<>();
        for (GangKey k : binds.gangsHolding()) {
            Gang g = books.gang(k);
            if (g != null) {
                out.add(g);
            }
        }
        return out;
    }

    /** Whether kube-scheduler is waiting on the gang: some of its members' binds are held. */
    boolean holds(Gang g) {
        return binds.count(g.key(), PodBinds.Stage.HELD) > 0;
    }

    /** Fails every held bind of the gang with {@code reason} (it cannot be admitted as things stand). */
    void failHeld(Gang g, String reason) {
        binds.failAll(g.key(), PodBinds.Stage.HELD, reason, Long.MAX_VALUE);
    }

    /** Fails the held binds whose hold has ended, each with its gang's current reason. */
    public void endDueHolds(long now) {
        for (GangKey k : binds.gangsHolding()) {
            Gang g = books.gang(k);
            binds.failAll(k, PodBinds.Stage.HELD, g == null ? "gang " + k + " is gone" : heldReason(g, now), now);
        }
    }

    private String heldReason(Gang g, long now) {
        if (g.spec() == null) {
            return "podgroup " + g.key() + " does not exist (yet)";
        }
        if (books.admitted(g)) {
            return "gang " + g.key() + " holds no slot on the node kube-scheduler chose and muster sees no room to move one there";
        }
        Refusal backingOff = GangAdmission.backoff(g, now);
        if (backingOff != null) {
            return backingOff.text();
        }
        return g.reason().isEmpty() ? "gang " + g.key() + " could not be admitted yet" : g.reason();
    }
}
