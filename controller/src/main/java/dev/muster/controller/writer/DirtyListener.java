package dev.muster.controller.writer;

import dev.muster.core.status.StatusChangeListener;
import dev.muster.core.status.StatusKey;

/**
 * Connects the fold to the write path: a change marks the object dirty; a deletion drops its dirty entry and
 * what is known of its written status. Quick and non-blocking, as the fold requires. Thread-safe (both
 * targets are).
 */
public final class DirtyListener implements StatusChangeListener {
    private final DirtySet<StatusKey> dirty;
    private final LastWritten written;

    public DirtyListener(DirtySet<StatusKey> dirty, LastWritten written) {
        this.dirty = dirty;
        this.written = written;
    }

    @Override
    public void changed(StatusKey key) {
        dirty.mark(key);
    }

    @Override
    public void removed(StatusKey key) {
        dirty.remove(key);
        written.forget(key);
    }
}
