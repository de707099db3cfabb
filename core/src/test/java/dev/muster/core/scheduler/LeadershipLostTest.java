package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A process that loses its Lease fails everything waiting or held at once and keeps no reservation. */
class LeadershipLostTest {
    @Test
    void everyWaitingAndHeldBindFailsAtOnceAndNoReservationIsLeft() {
        SchedulerHarness h = SchedulerHarness.cluster(4, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "waiting", 3, "default"));
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (int i = 0; i < 2; i++) { // 2 of 3 at the barrier: a reservation, two waiters
            Pod p = h.seen(pod("waiting-" + i).gang("waiting").requests("1", "1Gi").build());
            h.seen(pod("waiting-2").gang("waiting").requests("1", "1Gi").build());
            binds.add(h.schedule(p));
        }
        Pod held = h.seen(pod("held-0").gang("no-podgroup-yet").requests("1", "1Gi").build()); // held: its PodGroup is not seen
        h.scheduler.filter(held, h.nodeNames);
        binds.add(h.scheduler.bind(held.id(), h.nodeNames.getFirst()));
        assertThat(binds).noneMatch(CompletableFuture::isDone);
        assertThat(h.scheduler.ledger().reservations()).hasSize(1);

        h.scheduler.leadershipLost("lost the Lease");

        assertThat(binds).allSatisfy(b -> assertThat(b.join().error()).isEqualTo("lost the Lease"));
        assertThat(h.scheduler.ledger().reservations()).isEmpty();
        SchedulerStats stats = h.scheduler.stats();
        assertThat(stats.waitingBinds()).isZero();
        assertThat(stats.heldBinds()).isZero();
        assertThat(h.binder.calls()).as("no Binding").isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }
}
