package dev.muster.core.gang;

import dev.muster.core.model.Refusal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Whether gang admission is held because this process has not yet read the preemption decisions an earlier leader
 * recorded. Until it has, it cannot know which room a recorded preemptor still needs: the room its victims freed looks
 * free, and a victim's recreated pods (their Job or ReplicaSet makes them again) or any other gang could be admitted
 * onto it. So while the hold lasts nothing is admitted: the {@link AdmissionPass} does not run, {@link HeldBinds#admit}
 * admits nothing (held binds stay held), and the filter answers no pod but waits for the hold to end
 * ({@link #whenLifted}), so that no pod is refused (kube-scheduler would park it until an event about it) or answered
 * with an error (backed off a second or more) for a reason that ends by itself.
 *
 * <p>Who owns what: the preemption handover (in {@code core.preempt}) holds and lifts it — held from the start and again
 * whenever leadership is lost, lifted once the records are read and the room they name is reserved for its preemptors,
 * in the same critical section, so nothing is admitted in between. Confined to the core's lock ({@link Books}); a waiter
 * is completed once the lock is released (the outbox), never under it. A scheduler that never preempts holds nothing.
 */
public final class AdmissionHold {
    private final Books books;
    private boolean held;
    private CompletableFuture<Boolean> lifted; // shared by the filters waiting now; null when none waits

    public AdmissionHold(Books books, boolean held) {
        this.books = books;
        this.held = held;
    }

    public boolean held() {
        return held;
    }

    /** Holds admission (this process stopped leading: a next term reads the records again). */
    public void hold() {
        held = true;
    }

    /** Ends the hold; filters waiting for it go on (once the lock is released). */
    public void lift() {
        held = false;
        CompletableFuture<Boolean> waiting = lifted;
        lifted = null;
        if (waiting != null) {
            books.outbox().later(() -> waiting.complete(true));
        }
    }

    /** Completes with true when the hold ends (at once if it is not held), with false after {@code within}. */
    public CompletableFuture<Boolean> whenLifted(Duration within) {
        if (!held) {
            return CompletableFuture.completedFuture(true);
        }
        if (lifted == null) {
            lifted = new CompletableFuture<>();
        }
        return lifted.copy().completeOnTimeout(false, within.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Why {@code g} is not admitted now (a hold: its held binds stay held). */
    Refusal refusal(Gang g) {
        return Refusal.of(Refusal.Cause.IN_LINE, "gang " + g.key()
                + ": admission waits until this leader has read the preemption decisions an earlier leader recorded");
    }
}
