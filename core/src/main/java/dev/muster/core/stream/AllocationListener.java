package dev.muster.core.stream;

/**
 * Receives the allocation stream in order: possibly a snapshot first (and again whenever the reader had
 * to be resynchronised), then events whose sequences follow on without gaps or repeats.
 */
public interface AllocationListener {
    /** Replace everything folded so far with {@code snapshot}; events after {@code snapshot.sequence()} follow. */
    void onSnapshot(AllocationSnapshot snapshot);

    void onEvent(SequencedEvent event);

    /**
     * Everything the extender held when this connection started has been delivered (possibly nothing: an
     * empty journal, or a reader that was already up to date). Called at least once per connection;
     * idempotent for the listener.
     */
    default void onCaughtUp() {}
}
