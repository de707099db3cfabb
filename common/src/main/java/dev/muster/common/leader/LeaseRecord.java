package dev.muster.common.leader;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * What a Lease says, plus the resourceVersion it was read at (the token for optimistic concurrency).
 *
 * @param holderIdentity   current holder, "" when released
 * @param leaseDuration    how long a candidate waits after the last observed renewal before taking over
 * @param acquireTime      when the current holder acquired it (may be null)
 * @param renewTime        when the current holder last renewed it (may be null)
 * @param leaseTransitions how many times the holder changed
 * @param resourceVersion  the version read, "" for a record not yet stored
 */
public record LeaseRecord(String holderIdentity, Duration leaseDuration, Instant acquireTime, Instant renewTime,
                          int leaseTransitions, String resourceVersion) {
    public LeaseRecord {
        holderIdentity = holderIdentity == null ? "" : holderIdentity;
        Objects.requireNonNull(leaseDuration, "leaseDuration");
        resourceVersion = resourceVersion == null ? "" : resourceVersion;
    }

    public boolean isHeld() {
        return !holderIdentity.isEmpty();
    }

    public LeaseRecord withResourceVersion(String rv) {
        return new LeaseRecord(holderIdentity, leaseDuration, acquireTime, renewTime, leaseTransitions, rv);
    }
}
