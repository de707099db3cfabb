package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.Pod;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.testing.FakeClock;
import dev.muster.core.testing.RecordingBinder;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * An operation whose body throws half-way still runs, once the lock is released, the work it had queued: here the tick
 * fails a gang's waiting binds at its deadline (their answers are queued), and a later step of the same operation
 * throws (the journal fails to stamp an event). Dropping the queued work would leave the callers of those binds waiting
 * for an answer that never comes (an HTTP bind for kube-scheduler's 90 s timeout, a gRPC bind without a deadline for
 * ever); running it leaves no bind waiting or in flight, no slot claimed and the books balanced.
 */
class LockedOutboxOnThrowTest {
    /** Wall time for the journal that fails the {@code failAt}-th stamp after {@link #arm}: a failure inside the core's lock. */
    private static final class ArmedClock implements InstantSource {
        private int countdown; // 0: disarmed
        private int failures;

        synchronized void arm(int failAt) {
            countdown = failAt;
        }

        synchronized int failures() {
            return failures;
        }

        @Override
        public synchronized Instant instant() {
            if (countdown > 0 && --countdown == 0) {
                failures++;
                throw new IllegalStateException("journal clock failed: injected");
            }
            return Instant.EPOCH;
        }
    }

    @Test
    void aTickThatThrowsAfterFailingTheWaitingBindsStillAnswersThemAndLeavesNothingClaimedOrInFlight() {
        int threw = 0;
        for (int failAt = 1; ; failAt++) {
            ArmedClock wall = new ArmedClock();
            FakeClock clock = new FakeClock();
            RecordingBinder binder = new RecordingBinder();
            GangScheduler s = new GangScheduler(SchedulerConfig.DEFAULT, binder, new AllocationJournal(1 << 10, wall), clock);
            List<String> nodes = List.of("n0", "n1", "n2");
            nodes.forEach(n -> s.upsertNode(node(n, "4", "16Gi")));
            s.upsertQueue(queue("default"));
            s.markSynced();
            s.upsertPodGroup(podGroup("default", "g", 3, "default"));
            List<Pod> ms = List.of(pod("g-0").gang("g").requests("4", "1Gi").build(), pod("g-1").gang("g").requests("4", "1Gi").build(),
                    pod("g-2").gang("g").requests("4", "1Gi").build());
            ms.forEach(s::upsertPod);
            // two members wait at the barrier; the third never binds
            CompletableFuture<BindResult> f0 = s.bind(ms.get(0).id(), s.filter(ms.get(0), nodes).feasible().getFirst());
            CompletableFuture<BindResult> f1 = s.bind(ms.get(1).id(), s.filter(ms.get(1), nodes).feasible().getFirst());
            assertThat(s.stats().waitingBinds()).isEqualTo(2);
            clock.advance(SchedulerConfig.DEFAULT.gangDeadline().plusSeconds(1));

            wall.arm(failAt);
            RuntimeException thrown = null;
            try {
                s.expireDue(); // the deadline: the waiting binds fail (answers queued), the gang expires and backs off
            } catch (RuntimeException e) {
                thrown = e;
            }
            if (wall.failures() == 0) {
                break; // the tick stamped fewer events than failAt: every position has been tried
            }
            String at = "journal stamp " + failAt + " of the tick failed";
            assertThat(thrown).as(at).hasMessageContaining("journal clock failed: injected");
            threw++;
            assertThat(f0).as(at).isCompletedWithValueMatching(r -> !r.ok() && r.error().contains("deadline passed"));
            assertThat(f1).as(at).isCompletedWithValueMatching(r -> !r.ok() && r.error().contains("deadline passed"));
            SchedulerStats stats = s.stats();
            assertThat(stats.waitingBinds()).as(at).isZero();
            assertThat(stats.bindingsInFlight()).as(at).isZero();
            assertThat(stats.reservations()).as(at).as("no slot left claimed").isZero();
            assertThat(binder.calls()).as(at).isZero();
            assertThat(s.checkInvariants()).as(at).isEmpty();
        }
        assertThat(threw).as("the tick stamps at least one event after failing the binds").isPositive();
    }
}
