package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The books change in a way kube-scheduler never hears of, and the pods the filter refused on what changed are woken
 * ({@link PodWaker}) — once per refusal, never a pod that passed, was bound or deleted meanwhile.
 */
class WakeParkedPodsTest {
    @Test
    void aRunningGangsDeadlineReleasingItsUnclaimedSlotWakesAPodRefusedOnThatRoom() {
        SchedulerHarness h = SchedulerHarness.cluster(3, "4", "16Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "run", 2, "default", Duration.ofSeconds(20)));
        List<Pod> ms = List.of(h.seen(pod("run-0").gang("run").requests("4", "1Gi").build()),
                h.seen(pod("run-1").gang("run").requests("4", "1Gi").build()),
                h.seen(pod("run-2").gang("run").requests("4", "1Gi").build())); // never scheduled: its slot stays unclaimed
        for (Pod m : ms.subList(0, 2)) {
            String node = h.scheduler.filter(m, h.nodeNames).feasible().getFirst();
            h.scheduler.bind(m.id(), node);
        }
        assertThat(h.binder.bound()).hasSize(2);
        ms.subList(0, 2).forEach(m -> h.seen(pod(m.id().name()).gang("run").requests("4", "1Gi").on(h.binder.bound().get(m.uid())).build()));
        String spare = h.scheduler.gang(ms.get(2).gang()).slotNodes().getFirst();

        Pod web = h.seen(pod("web").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(web, List.of(spare)).feasible()).as("refused on the unclaimed slot's room").isEmpty();
        h.clock.advance(Duration.ofSeconds(10));
        h.scheduler.expireDue();
        assertThat(h.woken).as("nothing given back before the deadline").isEmpty();

        h.clock.advance(Duration.ofSeconds(11));
        h.scheduler.expireDue(); // the running gang's deadline: its unclaimed slot is released, no bind fails
        assertThat(h.scheduler.ledger().reservations()).isEmpty();
        assertThat(h.woken).containsExactly("default/web: reserved room was given back");
        assertThat(h.scheduler.filter(web, List.of(spare)).feasible()).containsExactly(spare);
    }

    @Test
    void aGangBindingIntoItsSlotsGivesNothingBackAndWakesNobody() {
        // its members' binds turn reserved room into used room, and the queue's reserved quota into bound quota: nothing
        // a pod refused on that room or quota could use, so waking it would only cost a status patch and a filter
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        h.scheduler.upsertQueue(queue("small", req("8", "64Gi")));
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "small"));
        h.scheduler.upsertPodGroup(podGroup("default", "late", 1, "small"));
        List<Pod> ms = List.of(h.seen(pod("g-0").gang("g").requests("4", "1Gi").build()),
                h.seen(pod("g-1").gang("g").requests("4", "1Gi").build()));
        assertThat(h.scheduler.filter(ms.getFirst(), h.nodeNames).feasible()).hasSize(1); // reserves both nodes, all the quota
        Pod web = h.seen(pod("web").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(web, h.nodeNames).feasible()).as("refused on the gang's reserved room").isEmpty();
        Pod late = h.seen(pod("late-0").gang("late").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(late, h.nodeNames).feasible()).as("refused: queue small is full").isEmpty();

        for (Pod m : ms) {
            String node = h.scheduler.filter(m, h.nodeNames).feasible().getFirst();
            h.scheduler.bind(m.id(), node);
        }
        assertThat(h.binder.bound()).hasSize(2);
        ms.forEach(m -> h.seen(pod(m.id().name()).gang("g").requests("4", "1Gi").on(h.binder.bound().get(m.uid())).build()));
        h.scheduler.expireDue();
        assertThat(h.scheduler.ledger().reservations()).isEmpty();
        assertThat(h.woken).as("a gang bound whole into its slots").isEmpty();
    }

    @Test
    void aPodThatPassedWasBoundOrDeletedIsNotWoken() {
        SchedulerHarness h = SchedulerHarness.cluster(1, "4", "16Gi");
        h.scheduler.upsertQueue(new QueueSpec("shut", QueueState.CLOSED, 1, null, null, null, true));
        h.scheduler.upsertPodGroup(podGroup("default", "a", 1, "shut"));
        h.scheduler.upsertPodGroup(podGroup("default", "b", 1, "shut"));
        Pod a = h.seen(pod("a-0").gang("a").requests("1", "1Gi").build());
        Pod b = h.seen(pod("b-0").gang("b").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(a, h.nodeNames).feasible()).isEmpty();
        assertThat(h.scheduler.filter(b, h.nodeNames).feasible()).isEmpty();
        h.scheduler.deletePod(b.uid());
        h.scheduler.upsertPodGroup(podGroup("default", "a", 1, "default")); // a moves to an open queue: woken by the PodGroup edit
        assertThat(h.woken).containsExactly("default/a-0: podgroup default/a changed");
        assertThat(h.scheduler.filter(a, h.nodeNames).feasible()).isNotEmpty();

        h.scheduler.upsertQueue(queue("shut")); // opened: a passed since, b was deleted
        assertThat(h.woken).hasSize(1);
    }

    @Test
    void theSameQueueOrPodGroupSeenAgainWakesNobody() {
        // the controller writes their status as pods come and go, and the informer hands the unchanged spec in again:
        // waking on that would retry a full queue's pods at the controller's flush rate for as long as it stays full
        SchedulerHarness h = SchedulerHarness.cluster(1, "4", "16Gi");
        QueueSpec shut = new QueueSpec("shut", QueueState.CLOSED, 1, null, null, null, true);
        PodGroupSpec g = podGroup("default", "g", 1, "shut");
        h.scheduler.upsertQueue(shut);
        h.scheduler.upsertPodGroup(g);
        Pod g0 = h.seen(pod("g-0").gang("g").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(g0, h.nodeNames).feasible()).isEmpty();

        h.scheduler.upsertQueue(new QueueSpec("shut", QueueState.CLOSED, 1, null, null, null, true));
        h.scheduler.upsertPodGroup(podGroup("default", "g", 1, "shut"));
        assertThat(h.woken).isEmpty();
        h.scheduler.upsertQueue(new QueueSpec("shut", QueueState.CLOSED, 2, null, null, null, true)); // its weight edited
        assertThat(h.woken).containsExactly("default/g-0: queue shut changed");
    }

    @Test
    void aQueueGivingQuotaBackWakesThePodsItsFullnessRefused() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        h.scheduler.upsertQueue(queue("small", req("4", "64Gi")));
        h.scheduler.upsertPodGroup(podGroup("default", "first", 2, "small", Duration.ofSeconds(20)));
        h.scheduler.upsertPodGroup(podGroup("default", "second", 1, "small"));
        Pod f0 = h.seen(pod("first-0").gang("first").requests("2", "1Gi").build());
        h.seen(pod("first-1").gang("first").requests("2", "1Gi").build());
        assertThat(h.scheduler.filter(f0, h.nodeNames).feasible()).isNotEmpty(); // reserves 4 cpu of the queue's 4
        Pod s0 = h.seen(pod("second-0").gang("second").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(s0, h.nodeNames).feasible()).as("queue full for now").isEmpty();

        h.clock.advance(Duration.ofSeconds(21));
        h.scheduler.expireDue(); // first's deadline: no bind waited, its reservation is released
        assertThat(h.woken).containsExactly("default/second-0: queue small has quota back");
    }

    @Test
    void aWakeIsHandedOutOnlyAfterTheLockIsReleasedAndAWakerThatThrowsChangesNothing() {
        FakeWaker waker = new FakeWaker();
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT, waker);
        h.nodes(dev.muster.core.testing.Fixtures.node("n0", "4", "16Gi"));
        h.scheduler.upsertQueue(new QueueSpec("shut", QueueState.CLOSED, 1, null, null, null, true));
        h.scheduler.markSynced();
        h.scheduler.upsertPodGroup(podGroup("default", "g", 1, "shut"));
        Pod g0 = h.seen(pod("g-0").gang("g").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(g0, h.nodeNames).feasible()).isEmpty();
        waker.scheduler = h.scheduler;

        h.scheduler.upsertQueue(queue("shut")); // the waker throws; the edit is applied all the same
        assertThat(waker.calls).isEqualTo(1);
        assertThat(waker.lockFreeWhenCalled).isTrue();
        CompletableFuture<BindResult> bind = h.scheduler.bind(g0.id(), h.scheduler.filter(g0, h.nodeNames).feasible().getFirst());
        assertThat(bind).isCompletedWithValueMatching(BindResult::ok);
        assertThat(h.invariantViolations()).isEmpty();
    }

    /** Checks, from another thread, that the scheduler's lock is free while it is called; then throws. */
    private static final class FakeWaker implements PodWaker {
        volatile GangScheduler scheduler;
        int calls;
        boolean lockFreeWhenCalled;

        @Override
        public void wake(List<dev.muster.core.model.PodId> pods, String why) {
            calls++;
            GangScheduler s = scheduler;
            CompletableFuture<Object> other = CompletableFuture.supplyAsync(() -> s.stats());
            lockFreeWhenCalled = other.orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).handle((v, e) -> e == null).join();
            throw new IllegalStateException("waker failed: injected");
        }
    }
}
