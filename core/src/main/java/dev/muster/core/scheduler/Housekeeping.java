package dev.muster.core.scheduler;

import dev.muster.core.gang.BindBarrier;
import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangExpiry;
import dev.muster.core.gang.GateLifts;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.Preemptions;
import java.util.ArrayList;
import java.util.Objects;

/**
 * What {@link GangScheduler} does on its own rather than for a verb or a cluster event: the periodic tick (expiry and the
 * admission pass, lifting the queue-admission gate, then preemption) and giving everything up when this process stops leading. Keeps no state of its own; the work is done by
 * {@link GangExpiry}, {@link Preemptions} and the {@link BindBarrier}. Not thread-safe on its own: confined to the
 * scheduler's lock.
 */
final class Housekeeping {
    private final Books books;
    private final BindBarrier barrier;
    private final GangExpiry expiry;
    private final GateLifts gates;
    private final Preemptions preemptions;

    Housekeeping(Books books, BindBarrier barrier, GangExpiry expiry, GateLifts gates, Preemptions preemptions) {
        this.gates = Objects.requireNonNull(gates, "gates");
        this.books = Objects.requireNonNull(books, "books");
        this.barrier = Objects.requireNonNull(barrier, "barrier");
        this.expiry = Objects.requireNonNull(expiry, "expiry");
        this.preemptions = Objects.requireNonNull(preemptions, "preemptions");
    }

    /** See {@link GangScheduler#expireDue}: each step runs even when an earlier one failed; the first failure is rethrown. */
    void tick(long now) {
        try {
            preemptions.shortfall(now); // before the expiry: a started decision keeps its room and plans only what is missing
            expiry.expireDue(now);
            gates.sweep(now); // after the pass: gangs their queue admits now are lifted in line order
        } catch (RuntimeException | Error e) {
            try {
                preemptions.tick(now);
            } catch (RuntimeException | Error later) {
                e.addSuppressed(later);
            }
            throw e;
        }
        preemptions.tick(now); // after the pass: gangs it could not admit for want of room may take room back
    }

    /** See {@link GangScheduler#leadershipLost}. */
    void leadershipLost(String reason) {
        barrier.leadershipLost(reason);
        preemptions.leadershipLost();
        Refusal why = Refusal.of(Refusal.Cause.RESERVATION_LOST, reason);
        for (Gang g : new ArrayList<>(books.gangs())) {
            if (books.ledger().reservation(g.key()) != null) {
                barrier.dropReservation(g, why);
                if (!g.running()) {
                    books.state(g, GangState.WAITING, why);
                }
            }
        }
    }
}
