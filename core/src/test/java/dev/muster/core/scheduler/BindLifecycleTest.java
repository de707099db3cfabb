package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ways out of a pod's bind (see PodBinds), each leaving the books as they should be. */
class BindLifecycleTest {
    private static List<Pod> knownGang(SchedulerHarness h, int size, String cpu) {
        h.scheduler.upsertPodGroup(podGroup("default", "g", size, "default"));
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            Pod p = pod("g-" + i).gang("g").requests(cpu, "1Gi").build();
            h.scheduler.upsertPod(p);
            out.add(p);
        }
        return out;
    }

    @Test
    void aMemberFilteredAgainWhileItsBindWaitsGivesThatBindUpAndNeverHoldsTwoSlots() {
        SchedulerHarness h = SchedulerHarness.cluster(4, "4", "16Gi");
        List<Pod> ms = knownGang(h, 3, "2");
        String first = h.scheduler.filter(ms.get(0), h.nodeNames).feasible().getFirst();
        CompletableFuture<BindResult> waiting = h.scheduler.bind(ms.get(0).id(), first);
        assertThat(waiting).isNotDone();

        // kube-scheduler's httpTimeout was shorter than the barrier's wait: it gave up and schedules the pod again, offered
        // nodes without its claimed slot
        List<String> others = h.nodeNames.stream().filter(n -> !n.equals(first)).toList();
        FilterResult again = h.scheduler.filter(ms.get(0), others);

        assertThat(waiting.join().error()).contains("is being scheduled again");
        assertThat(again.feasible()).hasSize(1);
        assertThat(h.scheduler.ledger().reservations().getFirst().slots())
                .filteredOn(s -> ms.get(0).uid().equals(s.podUid())).hasSize(1);
        assertThat(h.invariantViolations()).isEmpty();

        // and the gang still binds whole
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        binds.add(h.scheduler.bind(ms.get(0).id(), again.feasible().getFirst()));
        binds.add(h.schedule(ms.get(1)));
        binds.add(h.schedule(ms.get(2)));
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aBinderThatThrowsInsteadOfAnsweringIsAFailedBindingAndGivesTheRoomBack() {
        SchedulerHarness h = SchedulerHarness.cluster(1, "4", "16Gi");
        Pod single = pod("web").requests("1", "1Gi").build();
        h.scheduler.upsertPod(single);
        h.binder.throwFor(single.uid());

        BindResult r = h.schedule(single).orTimeout(30, TimeUnit.SECONDS).join();

        assertThat(r.error()).contains("binder threw for");
        assertThat(h.scheduler.ledger().pods()).isEmpty();
        assertThat(h.scheduler.stats().bindingsInFlight()).isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangMemberWhoseBinderThrowsReleasesItsSlotAndTheOthersKeepTheirs() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        List<Pod> ms = knownGang(h, 2, "2");
        h.binder.throwFor(ms.get(1).uid());

        CompletableFuture<BindResult> a = h.schedule(ms.get(0));
        CompletableFuture<BindResult> b = h.schedule(ms.get(1));

        assertThat(a.join().ok()).isTrue();
        assertThat(b.join().error()).contains("binder threw for");
        assertThat(h.scheduler.stats().bindingsInFlight()).isZero();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void leadershipLostFailsEveryWaitingAndHeldBindAtOnceAndReleasesTheRoom() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        List<Pod> ms = knownGang(h, 3, "2");
        CompletableFuture<BindResult> waiting = h.schedule(ms.get(0));
        Pod heldPod = h.seen(pod("late-0").gang("late").requests("1", "1Gi").build()); // its PodGroup is not seen yet: held
        CompletableFuture<BindResult> held = h.scheduler.bind(heldPod.id(), h.scheduler.filter(heldPod, h.nodeNames).feasible().getFirst());
        assertThat(h.scheduler.stats().waitingBinds()).isEqualTo(1);
        assertThat(h.scheduler.stats().heldBinds()).isEqualTo(1);

        h.scheduler.leadershipLost("this extender no longer leads");

        assertThat(waiting.join().error()).isEqualTo("this extender no longer leads");
        assertThat(held.join().error()).isEqualTo("this extender no longer leads");
        assertThat(h.scheduler.stats().waitingBinds()).isZero();
        assertThat(h.scheduler.stats().heldBinds()).isZero();
        assertThat(h.scheduler.ledger().reservations()).as("no room kept from the old books").isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void theJournalsListenersRunOnlyOnceTheCoreLockIsReleased() throws Exception {
        SchedulerHarness h = SchedulerHarness.cluster(1, "4", "16Gi");
        List<String> problems = new java.util.concurrent.CopyOnWriteArrayList<>();
        h.journal.subscribe(() -> {
            // another thread asks the core something: it would wait for ever if this thread still held the core's lock
            try {
                CompletableFuture.supplyAsync(h.scheduler::stats).get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                problems.add("a listener ran under the core's lock: " + e);
            }
        });
        Pod p = pod("web").requests("1", "1Gi").build();
        h.scheduler.upsertPod(p);
        assertThat(h.schedule(p).join().ok()).isTrue(); // journals PodAllocated, waking the listener
        assertThat(problems).isEmpty();
    }
}
