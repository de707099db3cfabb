package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * Gives capacity to waiting gangs in {@link WaitingLine} order. A full pass runs on every tick; when room frees up
 * between ticks (a pod leaves, a node grows, a queue changes), the gang next in line is tried at once
 * ({@link #roomFreed}). Between passes, other gangs are admitted at their members' filter, on free room — never on
 * room set aside. Confined to the core's lock ({@link Books}).
 *
 * <p>One pass: the room set aside last time goes back; fair shares and the order are recomputed; then, in order,
 * each waiting gang is admitted if its plan fits on the free room left by the gangs before it. The first gang that
 * is refused only for want of room, whose queue admits it and whose need fits in the cluster's schedulable
 * allocatable, becomes <em>next in line</em>: whatever free room its members fit on is set aside for it, up to what it
 * needs. Gangs after it are still admitted if they fit on what is left (backfill); gangs whose need exceeds the free
 * room left are not planned at all (their reason says whom they wait behind). The pass reserves only gangs
 * kube-scheduler is waiting on (binds held) and, once per pass, the first gang that waited long enough to be next in
 * line and whose queue admits it; the others are checked against their queue only and admitted at their members' next filter (a reservation
 * for members in kube-scheduler's backoff would hold room idle until they come back).
 *
 * <p><b>Why this cannot deadlock.</b> At most one gang holds set-aside room, and it never blocks itself; every other
 * hold is a whole reservation, which binds or expires within the gang deadline; running pods finish and give their
 * room back. The gang next in line fits in the cluster once enough of that room is back, so room flows to it until
 * it is admitted — and it is chosen only among gangs that could ever fit (aggregate need ≤ schedulable allocatable).
 * A gang that comes before it later (higher priority, or a queue further below its share) takes over the set-aside.
 * No pass runs while admission is held ({@link AdmissionHold}: a new leader has not read the preemption records yet).
 * Gangs behind Muster's queue-admission gate are in line like the others; each of them the pass reaches is checked
 * against its queue first, and told {@code waiting for queue <name>} while the queue refuses it ({@link GateLifts}
 * lifts the gate after the pass). A gang with a member behind a scheduling gate Muster does not lift takes no room at
 * all: its pods cannot reach kube-scheduler, so room kept for it would sit idle; it is told which gates it waits for.
 * It evicts nothing itself: after each pass {@link dev.muster.core.preempt.Preemptions} lets gangs it could not admit for
 * want of room take room back.
 */
public final class AdmissionPass {
    private final Books books;
    private final Ledger ledger;
    private final WaitingLine line;
    private final HeldBinds held;
    private final AdmissionHold hold;
    private final ShareReports shareReports = new ShareReports();
    /** When the gang next in line changes, this many gangs behind it are told so again (the rest keep their reason). */
    static final int RETELL_BEHIND = 64;
    private long pass; // numbers full passes (a gang's place remembers the last one that visited it)

    public AdmissionPass(Books books, WaitingLine line, HeldBinds held, AdmissionHold hold) {
        this.books = books;
        this.hold = hold;
        this.ledger = books.ledger();
        this.line = line;
        this.held = held;
    }

    /**
     * Room was freed (a pod left, a node grew or came back, a queue changed): the gang next in line gets first go at it
     * at once — admitted if it fits now, else its set-aside grows — then the gangs whose binds are held, in line order.
     * Everyone else gets their turn at the next tick's pass or at their members' next filter.
     */
    public void roomFreed(long now) {
        if (hold.held()) {
            return; // nothing is admitted before the preemption records are read; the first pass after follows
        }
        GangKey next = line.next();
        Gang g = next == null ? null : books.gang(next);
        if (g != null && line.waiting(g, now) && held.admit(g, now) == null) {
            line.next(null);
        }
        // then the gangs kube-scheduler is waiting on (their binds are held), in line order
        LineOrder holding = line.orderOf(held.holdingGangs());
        while (!holding.isEmpty()) {
            Gang h = holding.poll();
            if (line.waiting(h, now)) {
                held.admitHeld(h, now);
            }
        }
        // and held members of admitted gangs, whose slot Muster could not claim on kube-scheduler's node until now
        held.adoptHeldOfAdmitted(now);
    }

    /** A pending member joined {@code g}: if the gang now waits, its queue counts as having gangs waiting. */
    public void joined(Gang g) {
        line.joined(g, books.now());
    }

    /**
     * The periodic tick (every 200 ms in the extender): a full pass — backoffs end and binds fail with time, not only
     * with cluster events. O(waiting gangs) to refresh the order, plus the plans of the gangs it reaches.
     */
    public void tick(long now) {
        run(now);
    }

    /** A full pass (see the class comment). */
    public void run(long now) {
        if (hold.held()) { // see AdmissionHold: nothing is admitted, but fair shares stay current (Queue status, the dry run)
            line.refresh(now);
            reportShares();
            return;
        }
        line.inPass(true);
        try {
            pass(now);
        } finally {
            line.inPass(false);
        }
    }

    private void pass(long now) {
        ledger.releaseSetAside();
        line.next(null);
        // refreshed while the quota kept last pass still stands: a queue whose capability is spoken for by its first
        // gang in line does not count as wanting more (FairShare.Share#wantsMore)
        LineOrder order = line.refresh(now);
        books.releaseQuota();
        pass++;
        reportShares();
        Resources free = ledger.freeRoom();
        Resources cluster = line.clusterTotal();
        boolean nextChosen = false;
        boolean headTried = false; // a gang kube-scheduler is not waiting on was tried as next in line
        boolean blocked = false; // a gang earlier in line was refused for want of room
        int behind = 0;
        while (!order.isEmpty() && !(nextChosen && behind >= RETELL_BEHIND)) {
            Gang g = order.poll();
            g.place.pass = pass;
            Resources need = line.needOf(g);
            boolean atHand = held.holds(g); // kube-scheduler is waiting on it: its binds are held
            if (gatedByOthers(g)) {
                continue; // its gated members cannot reach kube-scheduler: it takes no room, is never next in line, blocks nobody
            }
            if (GateLifts.gatedByMuster(books, g) && (queueRefuses(g, now, need) || heldBehindGate(g, now))) {
                if (!nextChosen && claimsRoom(g)) {
                    // room was bought for it and is coming: next in line, so each new node's room is set aside for it as
                    // the node registers (roomFreed), and no other pod's filter takes it first; it keeps saying what it
                    // waits for (the hold's reason: the autoscaler's nodes)
                    Refusal told = g.why();
                    free = admit(g, now, need, free, true);
                    nextChosen = line.next() != null;
                    if (ledger.reservation(g.key()) == null && told != null && !told.equals(g.why())) {
                        books.state(g, GangState.UNSCHEDULABLE, told);
                    }
                }
                continue; // held back by its queue, or by a hold, behind Muster's gate, wherever it stands in line: told so
            }
            if ((nextChosen || blocked) && (!atHand || !need.fitsIn(free))) {
                // behind a gang that does not fit: admitted at its members' filter if it fits then (backfill), or
                // here once its binds are held and it fits on what is left; told whom it waits behind
                if (nextChosen) {
                    tellBehind(g, need, behind++ < RETELL_BEHIND);
                }
                continue;
            }
            boolean mayBeNext = !nextChosen && need.fitsIn(cluster) && line.waitedLongEnough(g, now);
            if (!atHand && queueRefuses(g, now, need)) {
                // kube-scheduler is not waiting on it and its queue cannot take it (the first in line for a full queue
                // keeps the quota it needs): it takes neither room nor the pass's one try at a gang not at hand, which
                // may make a gang further back next in line (a queue's big gang behind its small ones, say)
                continue;
            }
            if (!atHand && (headTried || !mayBeNext)) {
                // kube-scheduler is not waiting on it (its members are in its backoff or not yet tried): reserving
                // now would hold room idle until they come back, so it is admitted at its members' next filter. If it
                // could fit, the room stays counted as its own for the rest of the pass: gangs behind it whose binds
                // are held may not take it (it comes first in line)
                if (need.fitsIn(free)) {
                    free = free.minus(need);
                    blocked = true;
                }
                continue;
            }
            headTried |= !atHand;
            free = admit(g, now, need, free, mayBeNext);
            nextChosen = line.next() != null;
            // a gang that could fit the cluster but not now: the rest of the line queues behind it (a gang that can
            // never fit blocks nobody)
            blocked |= ledger.reservation(g.key()) == null && GangAdmission.waitsForRoom(g.why()) && need.fitsIn(cluster);
        }
        // the rest of the line keeps its reasons; further back, only gangs whose binds are held (kube-scheduler is waiting on them) are tried now
        List<Gang> holding = new ArrayList<>();
        for (Gang g : held.holdingGangs()) {
            if (g.place.pass != pass && line.waiting(g, now) && line.needOf(g).fitsIn(free)) {
                holding.add(g);
            }
        }
        LineOrder inOrder = line.orderOf(holding);
        while (!inOrder.isEmpty()) {
            Gang g = inOrder.poll();
            Resources need = line.needOf(g);
            if (need.fitsIn(free)) {
                free = admit(g, now, need, free, false);
            }
        }
        held.adoptHeldOfAdmitted(now);
    }

    /** Tries to admit {@code g} (maybe as next in line); returns the free room left after it. */
    private Resources admit(Gang g, long now, Resources need, Resources free, boolean mayBeNext) {
        if (queueRefuses(g, now, need)) {
            return free;
        }
        if (mayBeNext) {
            line.next(g);
        }
        Refusal why = held.admit(g, now);
        if (why == null) {
            if (mayBeNext) {
                line.next(null);
            }
            Reservation r = ledger.reservation(g.key());
            return r == null ? free : free.minus(r.total());
        }
        if (mayBeNext && GangAdmission.waitsForRoom(why)) {
            Reservation aside = ledger.setAside();
            free = aside == null ? free : free.minus(aside.total());
        } else if (mayBeNext) {
            line.next(null);
        }
        if (GangAdmission.Outlook.of(why) != GangAdmission.Outlook.HOLD) {
            held.failHeld(g, why.text());
        }
        return free;
    }

    /**
     * Whether the gang's queue refuses what it needs now; if so the gang is told why, and the first in line for the
     * queue's capability (waited long enough) keeps the quota it needs.
     */
    private void reportShares() {
        for (AllocationEvent.QueueShareChanged changed : shareReports.toReport(line.shares(), line.clusterTotal())) {
            books.outbox().emit(changed); // the controller's Queues service shows them
        }
    }

    private boolean queueRefuses(Gang g, long now, Resources need) {
        if (!(books.queueVerdict(g.queue(), need, g.key()) instanceof QueueAdmission.Verdict.Refused refused)) {
            return false;
        }
        String waitingFor = GateLifts.gatedByMuster(books, g) ? "waiting for queue " + g.queue() + ": " : "";
        Refusal why = refused.why().prefixed("gang " + g.key() + ": " + waitingFor).suffixed(line.noteFor(g));
        if (refused.resolvable() && books.quotaKept(g.queue()) == null && line.waitedLongEnough(g, now)) {
            // first in line for its queue's capability: later gangs of the queue may not take the quota it needs
            books.keepQuota(g.queue(), g.key(), need);
        }
        if (!why.equals(g.why()) || g.state() != GangState.UNSCHEDULABLE) {
            books.state(g, GangState.UNSCHEDULABLE, why);
        }
        if (GangAdmission.Outlook.of(why) != GangAdmission.Outlook.HOLD) {
            held.failHeld(g, why.text());
        }
        return true;
    }

    /**
     * Whether a {@link GateHold} keeps {@code g} behind Muster's gate although its queue admits it (all-or-nothing
     * scale-up waiting for nodes, say): the gang is told the hold's reason and not planned, since its gated members
     * could not take room anyway.
     */
    private boolean heldBehindGate(Gang g, long now) {
        long nowMillis = now / 1_000_000; // the core's monotonic clock in milliseconds, as the gate's lift asks
        for (GateHold hold : books.queueGate().holds()) {
            String reason = hold.reason(g, nowMillis);
            if (reason != null) {
                Refusal why = Refusal.of(Refusal.Cause.RESOURCES, "gang " + g.key() + ": " + reason);
                if (!why.equals(g.why()) || g.state() != GangState.UNSCHEDULABLE) {
                    books.state(g, GangState.UNSCHEDULABLE, why);
                }
                return true;
            }
        }
        return false;
    }

    /** Whether a {@link GateHold} says room was bought for {@code g} and is coming. */
    private boolean claimsRoom(Gang g) {
        for (GateHold hold : books.queueGate().holds()) {
            if (hold.claimsRoom(g)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a member of {@code g} carries a scheduling gate Muster does not lift ({@link GateLifts#othersGates}); if so
     * the gang is told it waits for those gates to be removed.
     */
    private boolean gatedByOthers(Gang g) {
        java.util.SortedSet<String> gates = GateLifts.othersGates(books, g);
        if (gates.isEmpty()) {
            return false;
        }
        Refusal why = Refusal.of(Refusal.Cause.MEMBERS_MISSING, "gang " + g.key() + ": waiting for the scheduling gates " + gates + " to be removed");
        if (!why.equals(g.why()) || g.state() != GangState.UNSCHEDULABLE) {
            books.state(g, GangState.UNSCHEDULABLE, why);
        }
        return true;
    }

    private void tellBehind(Gang g, Resources need, boolean retell) {
        if (line.mustTellBehind(g, retell) || g.state() != GangState.UNSCHEDULABLE) {
            books.state(g, GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.RESOURCES, "gang " + g.key() + ": needs " + need + line.noteFor(g)));
        }
    }
}
