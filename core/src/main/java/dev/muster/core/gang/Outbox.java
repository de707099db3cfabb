package dev.muster.core.gang;

import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the scheduling core says to the outside while it holds its lock: journal events are appended at once
 * (lock order: the core's lock, then the journal's, so the stream's order is the order state changed);
 * everything else that would run foreign code — completing a bind's future, calling the {@link Binder} — is
 * queued here and run by the lock's owner after the lock is released. Confined to the core's lock.
 */
public final class Outbox {
    private final AllocationJournal journal;
    private final List<Runnable> deferred = new ArrayList<>();

    public Outbox(AllocationJournal journal) {
        this.journal = journal;
    }

    /** Appends {@code e} (null: nothing happened) to the journal. */
    public void emit(AllocationEvent e) {
        if (e != null) {
            journal.append(e);
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
        if (deferred.isEmpty()) {
            return List.of();
        }
        List<Runnable> out = new ArrayList<>(deferred);
        deferred.clear();
        return out;
    }
}
