package dev.muster.core.status;

import java.util.ArrayList;
import java.util.List;

/** Records every listener call, in order. Thread-safe: guarded by {@code this}. */
public final class RecordingListener implements StatusChangeListener {
    private final List<String> calls = new ArrayList<>();

    @Override
    public synchronized void changed(StatusKey key) {
        calls.add("changed " + key);
    }

    @Override
    public synchronized void removed(StatusKey key) {
        calls.add("removed " + key);
    }

    /** The calls so far, and forgets them. */
    public synchronized List<String> take() {
        List<String> out = List.copyOf(calls);
        calls.clear();
        return out;
    }
}
