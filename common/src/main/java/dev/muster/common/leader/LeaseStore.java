package dev.muster.common.leader;

import java.util.Optional;

/**
 * Port: one named Lease. Writes are conditional: {@link #create} fails with a conflict if the Lease exists,
 * {@link #update} fails with a conflict unless the stored resourceVersion equals {@code record.resourceVersion()}.
 * Both return the stored record with its new resourceVersion. Implementations are thread-safe.
 */
public interface LeaseStore {
    /** The Lease, or empty when it does not exist. */
    Optional<LeaseRecord> get() throws LeaseStoreException;

    LeaseRecord create(LeaseRecord record) throws LeaseStoreException;

    LeaseRecord update(LeaseRecord record) throws LeaseStoreException;

    /** For logs: e.g. {@code muster-system/muster-extender}. */
    String describe();
}
