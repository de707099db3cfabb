package dev.muster.common.leader;

/**
 * A Lease read or write failed. {@link #isConflict()} marks an optimistic-concurrency loss (someone else created or
 * updated the Lease first: HTTP 409), which is an ordinary outcome of an election, not an error.
 */
public final class LeaseStoreException extends Exception {
    private final boolean conflict;

    public LeaseStoreException(String message, boolean conflict, Throwable cause) {
        super(message, cause);
        this.conflict = conflict;
    }

    public static LeaseStoreException conflict(String message) {
        return new LeaseStoreException(message, true, null);
    }

    public boolean isConflict() {
        return conflict;
    }
}
