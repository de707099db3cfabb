package dev.muster.common.leader;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lease-based leader election, the same protocol as client-go's {@code leaderelection} package, so Muster replicas
 * interoperate with {@code kubectl get lease} and with each other.
 *
 * <pre>
 *              acquire (lease absent, released, or not renewed for leaseDuration)
 *   CANDIDATE ───────────────────────────────────────────────────────────────▶ LEADER
 *       ▲                                                                        │ renew every retryPeriod
 *       └──────── renew failing for renewDeadline, or another holder seen ───────┘
 *                 (close() while leading releases the Lease: holder "")
 * </pre>
 *
 * <p>Expiry is judged on the local clock: a candidate records <em>when it saw</em> the Lease change (its
 * resourceVersion), not the holder's renewTime, so clock skew between nodes does not matter. A fresh candidate
 * therefore waits a full leaseDuration before taking over a Lease that is still held, unless the holder released it.
 * {@link #isLeader()} is also time-bounded: it turns false once the last successful renewal is older than
 * renewDeadline, even if the election thread is starved.
 *
 * <p>Threading: {@link #tick()} performs one election step; {@link #start()} runs it every retryPeriod on a
 * dedicated daemon thread; tests call {@code tick()} directly with a fake {@link InstantSource}. Steps are serialized
 * by {@code stepLock}, and callbacks run inside a step, so they are never concurrent and arrive in order. The fields
 * read by other threads ({@link #isLeader()}, {@link #leaderIdentity()}) are guarded by {@code stateLock}, which is
 * never held while calling the store or a callback. This class is thread-safe.
 */
public final class LeaderElector implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LeaderElector.class);

    private final LeaseStore store;
    private final String identity;
    private final LeaderElectionConfig config;
    private final InstantSource clock;
    private final LeaderCallbacks callbacks;

    /** Serializes {@link #tick()} and {@link #close()} (and therefore the callbacks). */
    private final Object stepLock = new Object();
    private final Object stateLock = new Object();

    // guarded by stateLock
    private LeaseRecord observed;
    private Instant observedAt;
    private boolean leading;
    private Instant lastRenewed;
    private boolean closed;

    // guarded by stepLock
    private String reportedLeader = "";
    private ScheduledExecutorService scheduler;

    public LeaderElector(LeaseStore store, String identity, LeaderElectionConfig config, InstantSource clock,
                         LeaderCallbacks callbacks) {
        this.store = Objects.requireNonNull(store, "store");
        this.identity = Objects.requireNonNull(identity, "identity");
        if (identity.isEmpty()) {
            throw new IllegalArgumentException("leader election identity must not be empty");
        }
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
    }

    public LeaderElector(LeaseStore store, LeaderIdentity identity, LeaderCallbacks callbacks) {
        this(store, identity.toString(), LeaderElectionConfig.DEFAULTS, InstantSource.system(), callbacks);
    }

    /** Runs {@link #tick()} now and then every retryPeriod on a daemon thread until {@link #close()}. */
    public void start() {
        synchronized (stepLock) {
            if (scheduler != null) {
                throw new IllegalStateException("leader elector for " + store.describe() + " already started");
            }
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "leader-elector " + store.describe());
                t.setDaemon(true);
                return t;
            });
            scheduler.scheduleWithFixedDelay(this::tickSafely, 0, config.retryPeriod().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** One election step: acquire or renew, and report transitions. */
    public void tick() {
        synchronized (stepLock) {
            if (isClosed()) {
                return;
            }
            Instant now = clock.instant();
            Optional<LeaseRecord> current;
            try {
                current = store.get();
            } catch (LeaseStoreException e) {
                failed(now, "read", e);
                return;
            }
            LeaseRecord next;
            if (current.isEmpty()) {
                next = new LeaseRecord(identity, leaseDuration(), now, now, 0, "");
                try {
                    succeeded(now, store.create(next));
                } catch (LeaseStoreException e) {
                    failed(now, "create", e);
                }
                return;
            }
            LeaseRecord lease = current.get();
            observe(lease, now);
            if (identity.equals(lease.holderIdentity())) {
                Instant acquired = lease.acquireTime() == null ? now : lease.acquireTime();
                next = new LeaseRecord(identity, leaseDuration(), acquired, now, lease.leaseTransitions(), lease.resourceVersion());
            } else if (lease.isHeld() && !expired(lease, now)) {
                if (isLeaderFlag()) {
                    stepDown("the Lease is held by " + lease.holderIdentity());
                }
                return;
            } else {
                next = new LeaseRecord(identity, leaseDuration(), now, now, lease.leaseTransitions() + 1, lease.resourceVersion());
            }
            try {
                succeeded(now, store.update(next));
            } catch (LeaseStoreException e) {
                failed(now, "update", e);
            }
        }
    }

    /** True while this process holds the Lease and renewed it within renewDeadline. */
    public boolean isLeader() {
        synchronized (stateLock) {
            return leading && !closed && Duration.between(lastRenewed, clock.instant()).compareTo(config.renewDeadline()) < 0;
        }
    }

    /** The holder identity last observed in the Lease, or empty when unknown or released. */
    public Optional<String> leaderIdentity() {
        synchronized (stateLock) {
            return observed == null || !observed.isHeld() ? Optional.empty() : Optional.of(observed.holderIdentity());
        }
    }

    /** The observed holder, read as a {@link LeaderIdentity} (where it serves); empty when unknown, released or not Muster's. */
    public Optional<LeaderIdentity> leader() {
        return leaderIdentity().flatMap(LeaderIdentity::parse);
    }

    public String identity() {
        return identity;
    }

    /** Stops the election; if leading, releases the Lease (holder "") so a standby takes over at once. */
    @Override
    public void close() {
        ScheduledExecutorService toStop;
        synchronized (stepLock) {
            boolean wasLeading;
            LeaseRecord last;
            synchronized (stateLock) {
                if (closed) {
                    return;
                }
                closed = true;
                wasLeading = leading;
                leading = false;
                last = observed;
            }
            toStop = scheduler;
            if (wasLeading) {
                release(last);
                notifyStopped();
            }
        }
        if (toStop != null) {
            toStop.shutdownNow();
        }
    }

    private void release(LeaseRecord last) {
        if (last == null || !identity.equals(last.holderIdentity())) {
            return;
        }
        Instant now = clock.instant();
        try {
            store.update(new LeaseRecord("", Duration.ofSeconds(1), now, now, last.leaseTransitions(), last.resourceVersion()));
            log.info("released Lease {}", store.describe());
        } catch (LeaseStoreException e) {
            log.warn("could not release Lease {} (a standby takes over after it expires): {}", store.describe(), e.getMessage());
        }
    }

    private void tickSafely() {
        try {
            tick();
        } catch (RuntimeException e) {
            log.error("leader election step for {} failed", store.describe(), e);
        }
    }

    private Duration leaseDuration() {
        return config.leaseDuration();
    }

    private boolean expired(LeaseRecord lease, Instant now) {
        Instant seen;
        synchronized (stateLock) {
            seen = observedAt;
        }
        return !seen.plus(lease.leaseDuration()).isAfter(now);
    }

    /** Records {@code lease} as observed; the observation time moves only when the Lease changed. */
    private void observe(LeaseRecord lease, Instant now) {
        synchronized (stateLock) {
            if (observed == null || !observed.resourceVersion().equals(lease.resourceVersion())
                    || !observed.holderIdentity().equals(lease.holderIdentity())) {
                observed = lease;
                observedAt = now;
            }
        }
        reportLeader(lease.holderIdentity());
    }

    private void succeeded(Instant now, LeaseRecord stored) {
        boolean started;
        synchronized (stateLock) {
            observed = stored;
            observedAt = now;
            lastRenewed = now;
            started = !leading;
            leading = true;
        }
        if (started) {
            log.info("{} acquired Lease {}", identity, store.describe());
            reportLeader(identity);
            try {
                callbacks.onStartedLeading();
            } catch (RuntimeException e) {
                log.error("onStartedLeading callback failed", e);
            }
        }
    }

    private void failed(Instant now, String what, LeaseStoreException e) {
        if (e.isConflict()) {
            log.debug("Lease {} {}: lost a race: {}", store.describe(), what, e.getMessage());
        } else {
            log.warn("Lease {} {} failed: {}", store.describe(), what, e.getMessage());
        }
        boolean lost;
        synchronized (stateLock) {
            lost = leading && Duration.between(lastRenewed, now).compareTo(config.renewDeadline()) >= 0;
        }
        if (lost) {
            stepDown("could not renew for " + config.renewDeadline().toSeconds() + "s");
        }
    }

    private void stepDown(String why) {
        synchronized (stateLock) {
            if (!leading) {
                return;
            }
            leading = false;
        }
        log.warn("{} stopped leading Lease {}: {}", identity, store.describe(), why);
        notifyStopped();
    }

    private void notifyStopped() {
        try {
            callbacks.onStoppedLeading();
        } catch (RuntimeException e) {
            log.error("onStoppedLeading callback failed", e);
        }
    }

    /** Called with stepLock held. */
    private void reportLeader(String holder) {
        if (holder.isEmpty() || holder.equals(reportedLeader)) {
            return;
        }
        reportedLeader = holder;
        try {
            callbacks.onNewLeader(holder);
        } catch (RuntimeException e) {
            log.error("onNewLeader callback failed", e);
        }
    }

    private boolean isLeaderFlag() {
        synchronized (stateLock) {
            return leading;
        }
    }

    private boolean isClosed() {
        synchronized (stateLock) {
            return closed;
        }
    }
}
