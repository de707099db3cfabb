package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import java.util.List;
import java.util.function.Consumer;

/**
 * Whether this leader has read the decisions an earlier leader recorded ({@link Evictor#records}): until it has, it
 * decides nothing, so that it first finishes or rolls back what was left half done. Confined to the core's lock: the
 * records are asked for once the lock is released, and handed over under it again ({@code underLock}); an answer that
 * comes after this process stopped leading (a later term) is dropped. Records that cannot be read are asked for again
 * after {@link #RETRY_AFTER}; until then nothing is decided (a decision made without them could take room an earlier
 * leader's preemptor still holds).
 */
final class Handover {
    private final Books books;
    private final Evictor evictor;
    private final Consumer<Runnable> underLock;
    private boolean adopted; // the records were read and handed over in this term
    private boolean reading; // they are being read
    private long term; // counts leadership losses
    private long notBefore = Long.MIN_VALUE; // after a failed read: when to ask again
    static final java.time.Duration RETRY_AFTER = java.time.Duration.ofSeconds(5);

    Handover(Books books, Evictor evictor, Consumer<Runnable> underLock) {
        this.books = books;
        this.evictor = evictor;
        this.underLock = underLock;
    }

    boolean adopted() {
        return adopted;
    }

    /** Asks for the records once a term; {@code adopt} gets them under the lock while this process still leads. */
    void read(Consumer<List<PreemptionRecord>> adopt) {
        if (reading || adopted || (notBefore != Long.MIN_VALUE && books.now() - notBefore < 0)) {
            return;
        }
        reading = true;
        long asked = term;
        books.outbox().later(() -> evictor.records().whenComplete((records, failure) -> underLock.accept(() -> {
            if (asked != term) {
                return;
            }
            reading = false;
            if (failure != null) {
                notBefore = books.now() + RETRY_AFTER.toNanos();
            } else if (evictor.ready()) {
                adopted = true;
                adopt.accept(records);
            }
        })));
    }

    void leadershipLost() {
        notBefore = Long.MIN_VALUE;
        adopted = false;
        reading = false;
        term++;
    }
}
