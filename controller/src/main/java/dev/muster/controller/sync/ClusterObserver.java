package dev.muster.controller.sync;

import dev.muster.controller.writer.LastWritten;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.PodObservation;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusFolding;
import dev.muster.core.status.StatusKey;
import java.util.Objects;

/**
 * The port informer adapters call (one call per add/update/delete notification). Each observation first tells
 * {@link LastWritten} what status the API shows, then updates the fold, so that by the time the fold marks the
 * object dirty the writer already knows whether a write is needed. Deletions go to the fold, which drops the
 * object's dirty entry and written status.
 *
 * <p>Thread-safe (its collaborators are). Calls for one object must come in the order the informer saw them,
 * which informers guarantee.
 */
public final class ClusterObserver {
    private final StatusFolding fold;
    private final LastWritten written;
    private final Runnable onSynced;
    private final java.util.concurrent.atomic.AtomicBoolean synced = new java.util.concurrent.atomic.AtomicBoolean();

    public ClusterObserver(StatusFolding fold, LastWritten written, Runnable onSynced) {
        this.fold = Objects.requireNonNull(fold, "fold");
        this.written = Objects.requireNonNull(written, "written");
        this.onSynced = Objects.requireNonNull(onSynced, "onSynced");
    }

    /** A Queue was listed, added or updated; {@code observed} is its status as the API shows it (null: none). */
    public void queue(QueueSpec spec, QueueStatus observed) {
        written.observed(StatusKey.queue(spec.name()), observed);
        fold.observeQueue(spec);
    }

    public void queueDeleted(String name) {
        fold.queueDeleted(name);
    }

    /** A PodGroup was listed, added or updated; {@code observed} is its status as the API shows it (null: none). */
    public void podGroup(PodGroupSpec spec, PodGroupStatus observed) {
        written.observed(StatusKey.podGroup(spec.key()), observed);
        fold.observePodGroup(spec, observed);
    }

    public void podGroupDeleted(GangKey key) {
        fold.podGroupDeleted(key);
    }

    /** A pod was listed, added or updated (pods outside any gang may be passed; they are ignored). */
    public void pod(PodObservation pod) {
        fold.observePod(pod);
    }

    public void podDeleted(String uid) {
        fold.podDeleted(uid);
    }

    /** The informers have delivered their first full lists (Queues, PodGroups and pods). */
    public void synced() {
        if (synced.compareAndSet(false, true)) {
            onSynced.run();
        }
    }

    public boolean isSynced() {
        return synced.get();
    }
}
