package dev.muster.core.scheduler;

import static dev.muster.core.scheduler.PreemptionTest.arrives;
import static dev.muster.core.scheduler.PreemptionTest.decisions;
import static dev.muster.core.scheduler.PreemptionTest.running;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.PreemptionRecord;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A leader change in the middle of a preemption: the decision is recorded before its first eviction, and the next
 * leader finishes a half-evicted unit and keeps the preemptor's room, or rolls back a decision nothing of which was
 * evicted. And a decision that started is never abandoned: when a victim stays stuck only the missing room is planned.
 */
class PreemptionLeaderChangeTest {
    private static final EvictionOutcome.Failed DENIED = new EvictionOutcome.Failed("the API server answered HTTP 403: denied by policy");
    private static final GangKey BIG = new GangKey("default", "big");
    private final RecordingEvictor evictor = new RecordingEvictor();

    private SchedulerHarness leader(int nodes, boolean synced) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor, DisruptionBudgets.NONE);
        for (int i = 0; i < nodes; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue("default"));
        if (synced) {
            h.scheduler.markSynced();
        }
        return h;
    }

    private long asks(String name) {
        return Collections.frequency(evictor.asked(), name);
    }

    @Test
    void theNextLeaderFinishesAHalfEvictedGangAndKeepsThePreemptorsRoom() {
        SchedulerHarness old = leader(2, true);
        List<Pod> low = running(old, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        // the dry runs pass; the real evictions are denied
        evictor.answer("low-2", DENIED).answer("low-3", DENIED).answerCheck("low-2", new EvictionOutcome.Evicted())
                .answerCheck("low-3", new EvictionOutcome.Evicted());
        arrives(old, "big", "default", 4, 1000);

        old.scheduler.expireDue();

        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3");
        // recorded before the first eviction: one unit, the whole gang
        assertThat(evictor.stored()).singleElement().satisfies(r -> {
            assertThat(r.preemptor()).isEqualTo(BIG);
            assertThat(r.units()).singleElement().satisfies(u -> assertThat(u).extracting(PodId::name)
                    .containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3"));
        });

        old.scheduler.leadershipLost("lost the Lease");
        // no stale leaving mark: low-2 and low-3 are held by their queue again (low-0 and low-1 are on their way out)
        assertThat(held(old)).isEqualTo(4_000);
        assertThat(evictor.stored()).as("the record outlives the leader").hasSize(1);

        // the next leader sees low-0 and low-1 gone, low-2 and low-3 still running, big waiting
        SchedulerHarness next = leader(2, false);
        next.scheduler.upsertPodGroup(dev.muster.core.testing.Fixtures.podGroup("default", "low", 4, "default"));
        next.scheduler.upsertPod(low.get(2));
        next.scheduler.upsertPod(low.get(3));
        List<Pod> big = arrives(next, "big", "default", 4, 1000);
        evictor.answer("low-2", new EvictionOutcome.Evicted()).answer("low-3", new EvictionOutcome.Evicted());
        next.scheduler.expireDue();
        assertThat(asks("low-2")).as("nothing before the first full sync").isEqualTo(1);

        next.scheduler.markSynced();
        next.clock.advance(Duration.ofSeconds(1));
        next.scheduler.expireDue();

        // the unit is finished, and the room is big's: a reservation over the leaving pods, nothing else evicted
        assertThat(asks("low-2")).isEqualTo(2);
        assertThat(asks("low-3")).isEqualTo(2);
        assertThat(evictor.asked()).hasSize(6);
        assertThat(next.scheduler.gang(BIG).slotNodes()).containsOnly("n0", "n1");
        assertThat(held(next)).as("big's 8 cpu; low-2 and low-3 leaving").isEqualTo(8_000);
        assertThat(evictor.stored()).as("kept while the decision lasts").hasSize(1);
        assertThat(next.invariantViolations()).isEmpty();

        // the victims go, big binds whole on their room: the decision ends and its record with it
        for (String name : List.of("low-0", "low-1", "low-2", "low-3")) {
            String uid = uidOf(next, name);
            if (uid != null) {
                next.scheduler.deletePod(uid);
            }
        }
        for (Pod m : big) {
            next.schedule(m);
        }
        for (Pod m : big) {
            next.scheduler.ledger().pods().stream().filter(r -> r.pod().uid().equals(m.uid())).findFirst().ifPresent(r ->
                    next.scheduler.upsertPod(m.withNode(r.node())));
        }
        next.clock.advance(Duration.ofSeconds(1));
        next.scheduler.expireDue();
        assertThat(next.scheduler.gang(BIG).bound()).isEqualTo(4);
        assertThat(evictor.stored()).isEmpty();
        assertThat(next.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(next.invariantViolations()).isEmpty();
    }

    @Test
    void theNextLeaderFinishesAUnitWhoseEvictedPodsAreAllGoneEvenAfterThePreemptorRuns() {
        SchedulerHarness old = leader(2, true);
        List<Pod> low = running(old, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        evictor.answer("low-3", DENIED).answerCheck("low-3", new EvictionOutcome.Evicted());
        arrives(old, "big", "default", 3, 1000); // 3 × 2 cpu: the room of three of low's four pods
        old.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3");
        old.scheduler.leadershipLost("lost the Lease");

        // the next leader takes over once low-0..2 are gone altogether (none of them is seen, not even terminating);
        // low-3 still runs and its eviction is still refused
        SchedulerHarness next = leader(2, false);
        next.scheduler.upsertPodGroup(dev.muster.core.testing.Fixtures.podGroup("default", "low", 4, "default"));
        next.scheduler.upsertPod(low.get(3));
        List<Pod> big = arrives(next, "big", "default", 3, 1000);
        next.scheduler.markSynced();
        next.clock.advance(Duration.ofSeconds(1));
        next.scheduler.expireDue();
        assertThat(asks("low-3")).as("the unit is finished: its last pod's eviction is sent").isEqualTo(2);

        // big runs on the room low-0..2 left before low-3 goes
        for (Pod m : big) {
            next.schedule(m);
        }
        for (Pod m : big) {
            next.scheduler.ledger().pods().stream().filter(r -> r.pod().uid().equals(m.uid())).findFirst().ifPresent(r ->
                    next.scheduler.upsertPod(m.withNode(r.node())));
        }
        assertThat(next.scheduler.gang(BIG).bound()).isEqualTo(3);
        next.clock.advance(Duration.ofSeconds(1));
        next.scheduler.expireDue();

        // the refusal ends: low-3 is evicted, so low does not run one pod of its four
        evictor.answer("low-3", new EvictionOutcome.Evicted());
        for (int i = 0; i < 4; i++) {
            next.clock.advance(Duration.ofSeconds(60)); // the longest wait between tries
            next.scheduler.expireDue();
        }
        assertThat(asks("low-3")).as("retried until accepted").isEqualTo(3);
        next.scheduler.deletePod(low.get(3).uid());
        next.clock.advance(Duration.ofSeconds(1));
        next.scheduler.expireDue();
        assertThat(evictor.stored()).as("the record goes once nothing is left to evict").isEmpty();
        assertThat(next.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(next.invariantViolations()).isEmpty();
    }

    @Test
    void aNewLeaderAdmitsNothingBeforeItHasReadTheRecordsSoAVictimsRecreatedPodsNeverTakeThePreemptorsRoom() {
        // an earlier leader evicted low-0 and low-1 for big and died; low-2 and low-3 still run, and low's Job made its
        // two lost pods again: they wait, like big, for the room low-0 and low-1 left on n0
        SchedulerHarness next = leader(2, false);
        List<Pod> low = running(next, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        next.scheduler.deletePod(low.get(0).uid());
        next.scheduler.deletePod(low.get(1).uid());
        evictor.record(new PreemptionRecord(BIG, "old", List.of(low.stream().map(Pod::id).toList())));
        Pod remade = next.seen(pod("low-4").gang("low").requests("2", "1Gi").build());
        next.seen(pod("low-5").gang("low").requests("2", "1Gi").build());
        next.scheduler.upsertPodGroup(dev.muster.core.testing.Fixtures.podGroup("default", "big", 4, "default"));
        for (int i = 0; i < 4; i++) {
            next.seen(pod("big-" + i).gang("big").requests("2", "1Gi").priority(1000).build());
        }
        evictor.failReads(1);
        next.scheduler.markSynced(); // it leads and has listed the cluster, but the records cannot be read yet

        // the recreated pod's filter is not answered (neither refused nor failed): it waits for the records
        assertThatThrownBy(() -> next.scheduler.filter(remade, next.nodeNames)).isInstanceOfSatisfying(VerbRefusedException.class,
                e -> assertThat(e.cause()).isEqualTo(VerbRefusedException.Cause.HANDOVER));
        CompletableFuture<Boolean> handedOver = next.scheduler.whenFilterable(VerbRefusedException.Cause.HANDOVER, remade.uid(), Duration.ofMinutes(5));
        next.clock.advance(Duration.ofSeconds(1));
        next.scheduler.expireDue();
        assertThat(handedOver).isNotDone();
        assertThat(next.scheduler.gang(new GangKey("default", "low")).slotNodes()).as("no pass admits low meanwhile").isEmpty();
        assertThat(next.scheduler.gang(BIG).slotNodes()).isEmpty();

        next.clock.advance(Duration.ofSeconds(5));
        next.scheduler.expireDue(); // the records are read: big keeps the room, the unit is finished

        assertThat(handedOver).isCompletedWithValue(true);
        assertThat(next.scheduler.gang(BIG).slotNodes()).containsOnly("n0", "n1");
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-2", "low-3");
        assertThat(next.scheduler.filter(remade, next.nodeNames).feasible()).as("the room is big's").isEmpty();
        assertThat(next.scheduler.gang(new GangKey("default", "low")).slotNodes()).isEmpty();
        assertThat(next.invariantViolations()).isEmpty();
    }

    @Test
    void aSinglePodKeepsTheRoomItsDecisionFreedAcrossALeaderChange() {
        // an earlier leader took gang low (on n0) for the priority-1000 single pod solo: low-0 went, low-1 was still to go
        SchedulerHarness next = leader(2, false);
        List<Pod> low = running(next, "low", "default", 2, 0, "n0", "n0");
        running(next, "mid", "default", 2, 0, "n1", "n1");
        next.scheduler.deletePod(low.get(0).uid());
        GangKey key = dev.muster.core.stream.AllocationEvent.PreemptionDecided.singlePod("default", "solo");
        evictor.record(new PreemptionRecord(key, "old", List.of(low.stream().map(Pod::id).toList())));
        Pod solo = next.seen(pod("solo").requests("4", "1Gi").priority(1000).build());
        Pod other = next.seen(pod("other").requests("2", "1Gi").build());

        next.scheduler.markSynced(); // the records are read: the unit is finished and solo's room on n0 kept

        assertThat(evictor.asked()).containsExactly("low-1");
        assertThat(next.scheduler.filter(other, List.of("n0")).feasible()).as("the room low-0 left is solo's").isEmpty();
        assertThat(next.scheduler.filter(solo, next.nodeNames).feasible()).containsExactly("n0");
        assertThat(next.invariantViolations()).isEmpty();

        // low-1 goes, solo binds there: the decision ends, nothing wasted, and its record is forgotten
        next.scheduler.deletePod(low.get(1).uid());
        next.scheduler.upsertPod(solo.withNode("n0")); // kube-scheduler bound it where the filter let it
        next.clock.advance(Duration.ofSeconds(1));
        next.scheduler.expireDue();
        assertThat(evictor.stored()).isEmpty();
        assertThat(next.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(next.invariantViolations()).isEmpty();
    }

    @Test
    void aDecisionNothingOfWhichWasEvictedIsRolledBackByTheNextLeader() {
        // recorded by a leader that lost its Lease before any eviction was accepted
        SchedulerHarness next = leader(2, false);
        List<Pod> low = running(next, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        evictor.record(new PreemptionRecord(BIG, "old", List.of(low.stream().map(Pod::id).toList())));
        next.scheduler.markSynced();

        next.scheduler.expireDue();

        assertThat(evictor.asked()).isEmpty();
        assertThat(evictor.stored()).isEmpty();
        assertThat(held(next)).as("every pod of low held by its queue: none leaving").isEqualTo(8_000);
        assertThat(next.invariantViolations()).isEmpty();
    }

    @Test
    void nothingIsDecidedUntilTheRecordsAreReadAndAFailedReadIsRetriedLater() {
        SchedulerHarness h = leader(2, false);
        running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        arrives(h, "big", "default", 4, 1000);
        evictor.failReads(1);
        h.scheduler.markSynced();

        h.scheduler.expireDue();
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.expireDue();
        assertThat(evictor.checked()).as("the records could not be read: no decision").isEmpty();

        h.clock.advance(Duration.ofSeconds(5));
        h.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3");
    }

    @Test
    void aDecisionThatCannotBeRecordedEvictsNothing() {
        SchedulerHarness h = leader(2, true);
        running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        evictor.refuseRecords("the API server answered HTTP 403");
        arrives(h, "big", "default", 4, 1000);

        h.scheduler.expireDue();

        assertThat(evictor.checked()).hasSize(4);
        assertThat(evictor.asked()).isEmpty();
        assertThat(h.scheduler.gang(BIG).slotNodes()).isEmpty();
        assertThat(h.scheduler.gang(BIG).reason()).contains("could not be recorded");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void whenAVictimStaysStuckOnlyTheMissingRoomIsPlannedAndNothingIsWasted() {
        SchedulerHarness h = leader(3, true);
        running(h, "low", "default", 2, 0, "n0", "n0"); // a gang of two 2-cpu pods on n0
        h.clock.advance(Duration.ofSeconds(10));
        Pod soloA = h.seen(pod("solo-a").requests("4", "1Gi").on("n1").build());
        h.seen(pod("solo-b").requests("4", "1Gi").on("n2").build());
        evictor.answer("solo-b", new EvictionOutcome.RefusedByBudget("Cannot evict pod as it would violate the pod's disruption budget."))
                .answerCheck("solo-b", new EvictionOutcome.Evicted());
        h.scheduler.upsertPodGroup(dev.muster.core.testing.Fixtures.podGroup("default", "big", 2, "default"));
        Pod first = h.seen(pod("big-0").gang("big").requests("4", "1Gi").priority(1000).build());
        h.seen(pod("big-1").gang("big").requests("4", "1Gi").priority(1000).build());
        h.scheduler.filter(first, List.of());

        h.scheduler.expireDue();
        // single pods go first: solo-a goes, solo-b's budget refuses it from now on
        assertThat(evictor.asked()).containsExactlyInAnyOrder("solo-a", "solo-b");
        h.scheduler.deletePod(soloA.uid());
        for (int s = 0; s < 125; s++) {
            h.clock.advance(Duration.ofSeconds(1));
            h.scheduler.expireDue();
        }

        // the reservation ran out with solo-b stuck: only its room was planned again, on low's; solo-a's stays big's
        assertThat(evictor.asked()).contains("low-0", "low-1");
        assertThat(h.scheduler.gang(BIG).slotNodes()).containsOnly("n0", "n1");
        assertThat(decisions(h)).as("one decision, never abandoned").hasSize(1);
        assertThat(h.scheduler.preemptionStats().wastedEvictions()).isZero();
        assertThat(held(h)).as("low leaving, big's 8 cpu (single pods belong to no queue)").isEqualTo(8_000);
        assertThat(evictor.stored()).singleElement().satisfies(r -> assertThat(r.units()).hasSize(2)); // solo-a, low
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aVictimGangsRemadeMemberNeverJoinsWhatIsLeftOfItsRunSoNoPartOfItRunsAfterTheEvictions() {
        // low (4 × 2 cpu) fills n0 and n1; n2 is free; big (4 × 2 cpu) needs n2 and half of low's room
        SchedulerHarness h = leader(3, true);
        List<Pod> low = running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        evictor.answer("low-2", DENIED).answerCheck("low-2", new EvictionOutcome.Evicted());
        arrives(h, "big", "default", 4, 1000);
        h.scheduler.expireDue();
        assertThat(evictor.asked()).containsExactlyInAnyOrder("low-0", "low-1", "low-2", "low-3");
        GangKey lowKey = new GangKey("default", "low");
        for (int i : new int[] {0, 1, 3}) { // three of low's pods go; low-2's eviction is refused for now
            h.scheduler.deletePod(low.get(i).uid());
        }
        assertThat(h.scheduler.gang(lowKey).bound()).as("low-2 still holds its room").isEqualTo(1);
        assertThat(h.scheduler.ledger().nodes()).as("room beside big's reservation that a 2-cpu pod fits in")
                .anyMatch(n -> n.allocatable().cpuMillis() - n.used().cpuMillis() - n.reserved().cpuMillis() >= 2_000);

        // low's Job makes a lost pod again: it does not join low-2 as a single pod would join a running gang
        Pod remade = h.seen(pod("low-4").gang("low").requests("2", "1Gi").build());
        CompletableFuture<dev.muster.core.gang.BindResult> bind = h.schedule(remade);

        assertThat(bind).as("its bind is held, not bound").isNotCompleted();
        assertThat(h.binder.boundNode(remade.uid())).isNull();
        assertThat(h.scheduler.gang(lowKey).bound()).isEqualTo(1);
        assertThat(h.scheduler.gang(BIG).slotNodes()).as("big keeps its room").hasSize(4);

        // low-2 goes at last: low's run is over, and low assembles anew, whole, like any gang
        h.scheduler.deletePod(low.get(2).uid());
        h.clock.advance(Duration.ofSeconds(1));
        h.scheduler.expireDue();
        assertThat(h.scheduler.gang(lowKey).bound()).isZero();
        assertThat(h.binder.boundNode(remade.uid())).as("one member of four does not run alone").isNull();
        assertThat(h.invariantViolations()).isEmpty();
    }

    private static long held(SchedulerHarness h) {
        var r = h.scheduler.ledger().heldByQueue().get("default");
        return r == null ? 0 : r.cpuMillis();
    }

    private static String uidOf(SchedulerHarness h, String name) {
        return h.scheduler.ledger().pods().stream().filter(r -> r.pod().name().equals(name)).map(r -> r.pod().uid()).findFirst().orElse(null);
    }
}
