package dev.muster.common.leader;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Two electors share one in-memory Lease and one fake clock; each test drives the steps itself. */
class LeaderElectorTest {
    private static final LeaderElectionConfig CONFIG = LeaderElectionConfig.DEFAULTS; // 15s / 10s / 2s
    private static final String A = new LeaderIdentity("muster-0", "10.0.0.1").toString();
    private static final String B = new LeaderIdentity("muster-1", "10.0.0.2").toString();

    private final FakeClock clock = new FakeClock();
    private final InMemoryLeaseStore lease = new InMemoryLeaseStore("muster-system/muster-extender");
    private final RecordingCallbacks aEvents = new RecordingCallbacks();
    private final RecordingCallbacks bEvents = new RecordingCallbacks();
    private final FlakyStore aStore = new FlakyStore(lease);
    private LeaderElector a;
    private LeaderElector b;

    @BeforeEach
    void electors() {
        a = new LeaderElector(aStore, A, CONFIG, clock, aEvents);
        b = new LeaderElector(lease, B, CONFIG, clock, bEvents);
    }

    /** Steps both electors, then advances the clock by one retry period. */
    private void round() {
        a.tick();
        b.tick();
        clock.advance(CONFIG.retryPeriod());
    }

    @Test
    void exactlyOneLeadsAndBothKnowItsAddress() {
        for (int i = 0; i < 20; i++) {
            round();
            assertThat(a.isLeader() ^ b.isLeader()).as("exactly one leader in round %d", i).isTrue();
        }
        assertThat(a.isLeader()).isTrue();
        assertThat(a.leader()).map(LeaderIdentity::podIp).contains("10.0.0.1");
        assertThat(b.leader()).map(LeaderIdentity::podIp).contains("10.0.0.1");
        assertThat(aEvents.events()).containsExactly("leader " + A, "started");
        assertThat(bEvents.events()).containsExactly("leader " + A);
    }

    @Test
    void standbyTakesOverOnlyAfterTheLeaseExpiresWhenTheLeaderStopsRenewing() {
        round();
        assertThat(a.isLeader()).isTrue();

        // a's process freezes: it no longer ticks. b keeps watching.
        Duration waited = Duration.ZERO;
        while (!b.isLeader()) {
            b.tick();
            clock.advance(CONFIG.retryPeriod());
            waited = waited.plus(CONFIG.retryPeriod());
            assertThat(waited).as("b took over").isLessThanOrEqualTo(CONFIG.leaseDuration().plus(CONFIG.retryPeriod().multipliedBy(2)));
        }
        assertThat(waited).as("b waited for the lease to expire").isGreaterThanOrEqualTo(CONFIG.leaseDuration());
        assertThat(a.isLeader()).as("a's own view expired with its renew deadline").isFalse();
        assertThat(b.leader()).map(LeaderIdentity::podIp).contains("10.0.0.2");
        assertThat(bEvents.events()).containsExactly("leader " + A, "leader " + B, "started");

        // a wakes up, sees b, and reports it without stepping on b
        a.tick();
        assertThat(a.isLeader()).isFalse();
        assertThat(aEvents.events()).containsExactly("leader " + A, "started", "leader " + B, "stopped");
        assertThat(lease.get().orElseThrow().leaseTransitions()).isEqualTo(1);
    }

    @Test
    void leaderStepsDownWhenRenewalFailsPastTheRenewDeadline() {
        round();
        assertThat(a.isLeader()).isTrue();
        Instant lastRenewal = clock.instant().minus(CONFIG.retryPeriod());
        aStore.failing.set(true);

        while (Duration.between(lastRenewal, clock.instant()).compareTo(CONFIG.renewDeadline()) < 0) {
            a.tick();
            assertThat(aEvents.events()).doesNotContain("stopped");
            clock.advance(CONFIG.retryPeriod());
        }
        a.tick();
        assertThat(aEvents.events()).endsWith("stopped");
        assertThat(a.isLeader()).isFalse();
    }

    @Test
    void closingTheLeaderReleasesTheLeaseSoTheStandbyTakesOverAtOnce() {
        round();
        assertThat(a.isLeader()).isTrue();

        a.close();
        assertThat(aEvents.events()).endsWith("stopped");
        assertThat(lease.get().orElseThrow().holderIdentity()).isEmpty();

        b.tick();
        assertThat(b.isLeader()).isTrue();
        assertThat(b.leader()).map(LeaderIdentity::podIp).contains("10.0.0.2");
        a.tick(); // a closed elector does nothing
        assertThat(a.isLeader()).isFalse();
    }

    @Test
    void aFreshCandidateWaitsAFullLeaseDurationBeforeTakingOverAHeldLease() {
        round();
        a.close(); // released: not this case; re-acquire with a new elector that simply disappears
        LeaderElector ghost = new LeaderElector(lease, "ghost_10.0.0.9", CONFIG, clock, new RecordingCallbacks());
        ghost.tick();
        assertThat(ghost.isLeader()).isTrue();

        LeaderElector c = new LeaderElector(lease, "muster-2_10.0.0.3", CONFIG, clock, new RecordingCallbacks());
        c.tick();
        clock.advance(CONFIG.leaseDuration().minusSeconds(1));
        c.tick();
        assertThat(c.isLeader()).isFalse();
        assertThat(c.leader()).map(LeaderIdentity::podIp).contains("10.0.0.9");
        clock.advance(Duration.ofSeconds(1));
        c.tick();
        assertThat(c.isLeader()).isTrue();
    }

    @Test
    void isLeaderTurnsFalseWhenTheElectionThreadStallsPastTheRenewDeadline() {
        a.tick();
        assertThat(a.isLeader()).isTrue();
        clock.advance(CONFIG.renewDeadline());
        assertThat(a.isLeader()).isFalse();
        a.tick(); // renewal succeeds: leading again without a stop/start
        assertThat(a.isLeader()).isTrue();
    }

    @Test
    void callbackExceptionsDoNotBreakTheElection() {
        LeaderElector c = new LeaderElector(lease, A, CONFIG, clock, new LeaderCallbacks() {
            @Override
            public void onStartedLeading() {
                throw new IllegalStateException("boom");
            }

            @Override
            public void onStoppedLeading() {
                throw new IllegalStateException("boom");
            }
        });
        c.tick();
        assertThat(c.isLeader()).isTrue();
        c.close();
        assertThat(lease.get().orElseThrow().holderIdentity()).isEmpty();
    }

    /** A store that can be told to fail every call (an unreachable API server). */
    static final class FlakyStore implements LeaseStore {
        final AtomicBoolean failing = new AtomicBoolean();
        private final LeaseStore delegate;

        FlakyStore(LeaseStore delegate) {
            this.delegate = delegate;
        }

        private void check() throws LeaseStoreException {
            if (failing.get()) {
                throw new LeaseStoreException("connection refused", false, null);
            }
        }

        @Override
        public Optional<LeaseRecord> get() throws LeaseStoreException {
            check();
            return delegate.get();
        }

        @Override
        public LeaseRecord create(LeaseRecord record) throws LeaseStoreException {
            check();
            return delegate.create(record);
        }

        @Override
        public LeaseRecord update(LeaseRecord record) throws LeaseStoreException {
            check();
            return delegate.update(record);
        }

        @Override
        public String describe() {
            return delegate.describe();
        }
    }
}
