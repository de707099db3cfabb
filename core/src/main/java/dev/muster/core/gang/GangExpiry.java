package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.time.Backoff;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.Refusal;
import java.util.ArrayList;

/**
 * Time in the core: reservations whose deadline passed are dropped (waiting binds fail, capacity is released,
 * the gang backs off); gangs that already run give back unused leftover slots; held binds are retried and
 * those whose hold ended fail; binds the cluster never confirmed give their room back. Driven by a periodic
 * tick. Confined to the core's lock ({@link Books}).
 */
public final class GangExpiry {
    private final Books books;
    private final Ledger ledger;
    private final BindBarrier barrier;
    private final HeldBinds held;
    private final Assumptions assumptions;
    private final AdmissionPass pass;
    private final Backoff backoff;

    public GangExpiry(Books books, BindBarrier barrier, HeldBinds held, Assumptions assumptions, AdmissionPass pass, Backoff backoff) {
        this.pass = pass;
        this.books = books;
        this.ledger = books.ledger();
        this.barrier = barrier;
        this.held = held;
        this.assumptions = assumptions;
        this.backoff = backoff;
    }

    /**
     * Runs every step — reservation deadlines, expected binds, the admission pass, hold ends — each even when an earlier
     * one threw (one failure must not stop the others for good); the first failure is rethrown once all ran.
     */
    public void expireDue(long now) {
        Throwable first = null;
        for (Runnable step : new Runnable[] {() -> expireReservations(now), () -> assumptions.expireDue(now), () -> pass.tick(now),
                () -> held.endDueHolds(now)}) {
            try {
                step.run();
            } catch (RuntimeException | Error e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first instanceof Error e) {
            throw e;
        }
        if (first != null) {
            throw (RuntimeException) first;
        }
    }

    private void expireReservations(long now) {
        for (Reservation r : ledger.reservations()) {
            if (now - r.deadlineNanos() < 0) {
                continue;
            }
            Gang g = books.gang(r.gang());
            if (g == null) {
                ledger.releaseReservation(r.gang());
            } else if (g.running()) {
                for (Slot s : new ArrayList<>(r.slots())) {
                    if (s.state() != Slot.State.CLAIMED) {
                        ledger.releaseSlot(r, s);
                    }
                }
            } else {
                Refusal why = Refusal.of(Refusal.Cause.DEADLINE_PASSED, "gang " + g.key() + ": deadline passed with "
                        + (g.bound() + books.binds().count(g.key(), PodBinds.Stage.WAITING)) + "/" + g.minMember() + " members bound or waiting");
                barrier.dropReservation(g, why);
                for (var e : g.expired(why, now + backoff.delayAfter(g.failures() + 1).toNanos())) {
                    books.outbox().emit(e);
                }
            }
        }
    }
}
