package dev.muster.core.status;

/**
 * Told which objects' status or view changed. {@link StatusFolding} calls it while holding its lock, in the
 * order the changes happened: implementations must be quick, must not block, and must not call back into
 * the fold (mark a set, wake a thread).
 */
public interface StatusChangeListener {
    /** The desired status (or the served view) of {@code key} may differ from before. */
    void changed(StatusKey key);

    /** The object is gone: forget it. */
    void removed(StatusKey key);

    StatusChangeListener NONE = new StatusChangeListener() {
        @Override
        public void changed(StatusKey key) {}

        @Override
        public void removed(StatusKey key) {}
    };
}
