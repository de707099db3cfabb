package dev.muster.controller.writer;

import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.core.status.StatusKey;

/**
 * What the writer reports. Called on the flushing thread; implementations must be quick and thread-safe for
 * their readers. Pending work is read from the {@link DirtySet} itself.
 */
public interface WriterMetrics {
    /** One successful write; {@code lagNanos} from the first mark of the change to the write's answer. */
    void written(StatusKey key, long lagNanos);

    /** A dirty key whose desired status equals what the API holds: no request. */
    void skipped(StatusKey key);

    /** A failed write; a retry of the same entry is scheduled. */
    void failed(StatusKey key, Kind kind);

    /** A flush stopped with work left because the QPS budget was spent. */
    void throttled();

    WriterMetrics NONE = new WriterMetrics() {
        @Override
        public void written(StatusKey key, long lagNanos) {}

        @Override
        public void skipped(StatusKey key) {}

        @Override
        public void failed(StatusKey key, Kind kind) {}

        @Override
        public void throttled() {}
    };
}
