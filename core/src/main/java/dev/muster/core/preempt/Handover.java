package dev.muster.core.preempt;

import dev.muster.core.gang.AdmissionHold;
import dev.muster.core.gang.Books;
import java.util.List;
import java.util.function.Consumer;

/**
 * Whether this leader has read the decisions an earlier leader recorded ({@link Evictor#records}): until it has, it
 * decides nothing and admits nothing ({@link AdmissionHold}), so that it first finishes or rolls back what was left
 * half done and keeps the room a recorded preemptor still needs before any other gang (a victim's recreated pods
 * among them) can be admitted onto it. Confined to the core's lock: the records are asked for once the lock is
 * released, and handed over under it again ({@code underLock}); an answer that comes after this process stopped leading
 * (a later term) is dropped. In the one critical section that hands them over, the records are adopted first (their
 * preemptors' room reserved) and then the admission hold is lifted. Records that cannot be read are asked for again
 * after {@link #RETRY_AFTER}; until then nothing is decided or admitted (a decision or admission made without them could
 * take room an earlier leader's preemptor still holds), and filters are answered once the hold ends.
 */
final class Handover {
    private final Books books;
    private final Evictor evictor;
    private final Consumer<Runnable> underLock;
    private final AdmissionHold hold;
    private final Consumer<List<PreemptionRecord>> adopt;
    private boolean adopted; // the records were read and handed over in this term
    private boolean reading; // they are being read
    private long term; // counts leadership losses
    private long notBefore = Long.MIN_VALUE; // after a failed read: when to ask again
    static final java.time.Duration RETRY_AFTER = java.time.Duration.ofSeconds(5);

    /** {@code adopt} gets the records under the lock while this process still leads. */
    Handover(Books books, Evictor evictor, Consumer<Runnable> underLock, AdmissionHold hold, Consumer<List<PreemptionRecord>> adopt) {
        this.books = books;
        this.evictor = evictor;
        this.underLock = underLock;
        this.hold = hold;
        this.adopt = adopt;
    }

    boolean adopted() {
        return adopted;
    }

    /** Asks for the records once a term (call only while this process leads and has listed the cluster). */
    void read() {
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
                try {
                    adopt.accept(records);
                } finally {
                    hold.lift(); // even if adopting failed: admission must not stay held for good
                }
            }
        })));
    }

    void leadershipLost() {
        notBefore = Long.MIN_VALUE;
        adopted = false;
        reading = false;
        term++;
        hold.hold();
    }
}
