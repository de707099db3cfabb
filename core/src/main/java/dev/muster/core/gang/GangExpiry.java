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
    private final AdmissionPass pass;
    private final Backoff backoff;

    public GangExpiry(Books books, BindBarrier barrier, AdmissionPass pass, Backoff backoff) {
        this.pass = pass;
        this.books = books;
        this.ledger = books.ledger();
        this.barrier = barrier;
        this.backoff = backoff;
    }

    public void expireDue(long now) {
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
                        + (g.bound() + g.waiters().size()) + "/" + g.minMember() + " members bound or waiting");
                barrier.dropReservation(g, why.text());
                for (var e : g.expired(why, now + backoff.delayAfter(g.failures() + 1).toNanos())) {
                    books.outbox().emit(e);
                }
            }
        }
        barrier.expireUnconfirmed(now);
        pass.tick(now);
        barrier.endDueHolds(now);
    }
}
