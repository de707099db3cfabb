package dev.muster.core.status;

import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Passes each change on to every listener added, in the order they were added. Lets the fold be built before
 * the listeners that read from it (the Watch hub needs the fold; the fold needs its listeners). Thread-safe:
 * the list is copy-on-write.
 */
public final class StatusChangeFanout implements StatusChangeListener {
    private final CopyOnWriteArrayList<StatusChangeListener> listeners = new CopyOnWriteArrayList<>();

    public StatusChangeFanout add(StatusChangeListener listener) {
        listeners.add(listener);
        return this;
    }

    @Override
    public void changed(StatusKey key) {
        for (StatusChangeListener l : listeners) {
            l.changed(key);
        }
    }

    @Override
    public void removed(StatusKey key) {
        for (StatusChangeListener l : listeners) {
            l.removed(key);
        }
    }
}
