package dev.muster.core.gang;

import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the scheduling core says to the outside while it holds its lock: journal events are recorded at once
 * (lock order: the core's lock, then the journal's, so the stream's order is the order state changed), but the
 * journal's listeners are woken only after the lock is released; everything else that would run foreign code —
 * completing a bind's future, calling the {@link Binder} — is queued here too. The lock's owner runs all of it
 * after unlocking, so no foreign code runs under the core's lock. Confined to the core's lock.
 */
public final class Outbox {
    private final AllocationJournal journal;
    private final List<Runnable> deferred = new ArrayList<>();
    private boolean recorded; // an event was recorded since the last drain: the journal's readers are woken after it

    public Outbox(AllocationJournal journal) {
        this.journal = journal;
    }

    /** Appends {@code e} (null: nothing happened) to the journal. */
    public void emit(AllocationEvent e) {
        if (e != null) {
            journal.record(e);
            recorded = true;
        }
    }

    /** Runs {@code action} once the lock is released. */
    public void later(Runnable action) {
        deferred.add(action);
    }

    /** Completes {@code f} with {@code r} once the lock is released. */
    public void complete(CompletableFuture<BindResult> f, BindResult r) {
        deferred.add(() -> f.complete(r));
    }

    /** Takes every queued action (the lock's owner runs them after unlocking). */
    public List<Runnable> drain() {
        if (deferred.isEmpty() && !recorded) {
            return List.of();
        }
        List<Runnable> out = new ArrayList<>(deferred.size() + 1);
        if (recorded) {
            out.add(journal::wake);
            recorded = false;
        }
        out.addAll(deferred);
        deferred.clear();
        return out;
    }
}
