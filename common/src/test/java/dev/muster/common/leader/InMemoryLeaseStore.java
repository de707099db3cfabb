package dev.muster.common.leader;

import java.util.Optional;

/**
 * A {@link LeaseStore} in memory, with the API server's optimistic concurrency (resourceVersion increments on every
 * write; a create of an existing Lease or an update at a stale version is a conflict). For tests (common's test-jar,
 * used by the server's tests too); nothing shipped uses it. Thread-safe: every method holds {@code this}.
 */
public final class InMemoryLeaseStore implements LeaseStore {
    private final String name;
    private LeaseRecord stored; // guarded by this
    private long version; // guarded by this

    public InMemoryLeaseStore(String name) {
        this.name = name;
    }

    @Override
    public synchronized Optional<LeaseRecord> get() {
        return Optional.ofNullable(stored);
    }

    @Override
    public synchronized LeaseRecord create(LeaseRecord record) throws LeaseStoreException {
        if (stored != null) {
            throw LeaseStoreException.conflict("lease " + name + " already exists");
        }
        stored = record.withResourceVersion(Long.toString(++version));
        return stored;
    }

    @Override
    public synchronized LeaseRecord update(LeaseRecord record) throws LeaseStoreException {
        if (stored == null) {
            throw new LeaseStoreException("lease " + name + " not found", false, null);
        }
        if (!stored.resourceVersion().equals(record.resourceVersion())) {
            throw LeaseStoreException.conflict("lease " + name + " was modified (resourceVersion " + stored.resourceVersion()
                    + ", update based on " + record.resourceVersion() + ")");
        }
        stored = record.withResourceVersion(Long.toString(++version));
        return stored;
    }

    @Override
    public String describe() {
        return name;
    }
}
