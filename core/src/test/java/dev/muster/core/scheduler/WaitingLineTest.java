package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Which gang gets capacity next, and the room set aside for it (WaitingLine, AdmissionPass). */
class WaitingLineTest {
    /** Room is set aside at once here; {@link #roomIsSetAsideOnlyForAGangThatWaitedLongEnough} covers the delay. */
    private static SchedulerHarness cluster(int nodes, String cpu, String mem) {
        return SchedulerHarness.cluster(SchedulerConfig.DEFAULT.withSetAsideAfter(java.time.Duration.ZERO), nodes, cpu, mem);
    }

    private static List<Pod> members(String pg, int n, String cpu, int priority) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(pod(pg + "-" + i).gang(pg).requests(cpu, "1Gi").priority(priority).build());
        }
        return out;
    }

    private static List<Pod> gang(SchedulerHarness h, String name, int size, String cpu, String queue, int priority) {
        h.scheduler.upsertPodGroup(podGroup("default", name, size, queue));
        List<Pod> ms = members(name, size, cpu, priority);
        ms.forEach(h.scheduler::upsertPod);
        return ms;
    }

    private static List<Pod> hogs(SchedulerHarness h, int n, String cpu) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pod hog = pod("hog" + i).requests(cpu, "1Gi").on("n" + i).build();
            h.scheduler.upsertPod(hog);
            out.add(hog);
        }
        return out;
    }

    private static String reason(SchedulerHarness h, String gang) {
        return h.scheduler.gang(new GangKey("default", gang)).reason();
    }

    private static boolean reserved(SchedulerHarness h, String gang) {
        return h.scheduler.ledger().reservation(new GangKey("default", gang)) != null;
    }

    @Test
    void roomThatFreesUpIsSetAsideForTheGangNextInLineNotTakenBySmallerGangs() {
        SchedulerHarness h = cluster(4, "4", "16Gi");
        List<Pod> hogs = hogs(h, 4, "4");
        List<Pod> big = gang(h, "big", 4, "4", "default", 0);
        h.schedule(big.getFirst()); // refused for room: held, and next in line
        h.scheduler.expireDue();
        assertThat(reason(h, "big")).contains("next in line");

        h.scheduler.deletePod(hogs.get(0).uid()); // 4 cpu free on n0: set aside for big, not free for others
        List<Pod> small = gang(h, "small", 1, "2", "default", 0);
        CompletableFuture<BindResult> smallBind = h.schedule(small.getFirst());
        assertThat(reserved(h, "small")).isFalse();
        assertThat(reason(h, "small")).contains("waiting behind default/big (next in line in queue default)");
        assertThat(h.scheduler.ledger().nodes().stream().filter(n -> n.name().equals("n0")).findFirst().orElseThrow().reserved().cpuMillis())
                .isEqualTo(4000L);

        for (int i = 1; i < 4; i++) {
            h.scheduler.deletePod(hogs.get(i).uid());
        }
        assertThat(reserved(h, "big")).isTrue(); // admitted the moment the last room came back, ahead of small
        assertThat(h.scheduler.gang(new GangKey("default", "big")).state()).isEqualTo(GangState.RESERVED);
        assertThat(smallBind).isNotDone();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aSinglePodRefusedOnlyForGangsRoomIsToldWhoHoldsIt() {
        SchedulerHarness h = cluster(3, "4", "16Gi");
        List<Pod> hogs = hogs(h, 3, "4");
        List<Pod> big = gang(h, "big", 2, "4", "default", 0);
        h.schedule(big.getFirst());
        h.scheduler.expireDue();
        h.scheduler.deletePod(hogs.get(0).uid()); // n0's room is set aside for big

        FilterResult f = h.scheduler.filter(h.seen(pod("web").requests("2", "1Gi").build()), List.of("n0")); // where kube-scheduler finds room
        assertThat(f.feasible()).isEmpty();
        assertThat(f.failed().get("n0")).isEqualTo("insufficient cpu (after gang reservations): room on this node is set aside for gang default/big (next in line)");

        // n1 is used by a pod in Muster's view, not held by a gang: kube-scheduler offering it means Muster's view is behind
        FilterResult behind = h.scheduler.filter(h.seen(pod("web2").requests("2", "1Gi").build()), List.of("n0", "n1"));
        assertThat(behind.feasible()).containsExactly("n1");
        assertThat(behind.failed().get("n0")).contains("set aside for gang default/big");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void roomTheGangNextInLineCannotUseStaysFreeForOthers() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        h.nodes(node("small-node", "2", "16Gi"));
        hogs(h, 2, "4");
        List<Pod> big = gang(h, "big", 2, "4", "default", 0);
        h.schedule(big.getFirst());
        h.scheduler.expireDue();
        assertThat(reason(h, "big")).contains("next in line");

        List<Pod> small = gang(h, "small", 1, "2", "default", 0); // fits only on small-node, which big cannot use
        h.schedule(small.getFirst());
        assertThat(reserved(h, "small") || h.binder.bound().containsKey(small.getFirst().uid())).isTrue();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void higherPriorityGoesFirstThenTheQueueFurthestBelowItsShareThenTheOldest() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        hogs(h, 2, "4");
        gang(h, "old-low", 2, "4", "default", 0);
        gang(h, "new-high", 2, "4", "default", 100);
        h.scheduler.expireDue();
        assertThat(reason(h, "new-high")).contains("next in line");
        assertThat(reason(h, "old-low")).contains("waiting behind default/new-high");

        SchedulerHarness q = cluster(4, "4", "16Gi");
        q.scheduler.upsertQueue(new QueueSpec("rich", QueueState.OPEN, 1, null, null, null, true));
        q.scheduler.upsertQueue(new QueueSpec("poor", QueueState.OPEN, 1, null, null, null, true));
        List<Pod> richRunning = gang(q, "rich-running", 3, "4", "rich", 0);
        richRunning.forEach(p -> q.schedule(p));
        q.binder.completeHeld();
        assertThat(reserved(q, "rich-running") || q.binder.bound().size() == 3).isTrue();
        gang(q, "rich-next", 2, "4", "rich", 0);  // older
        gang(q, "poor-next", 2, "4", "poor", 0);  // newer, but its queue holds nothing
        q.scheduler.expireDue();
        assertThat(reason(q, "poor-next")).contains("next in line");
        assertThat(reason(q, "rich-next")).contains("waiting behind default/poor-next (next in line in queue poor)")
                .contains("queue rich is over its fair share of cpu (holds 75%, share 50%)");
        assertThat(q.invariantViolations()).isEmpty();
    }

    @Test
    void aGangThatCanNeverFitTheClusterIsNotNextInLine() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        hogs(h, 1, "4");
        gang(h, "huge", 4, "4", "default", 100); // 16 cpu: more than the cluster's 8
        gang(h, "fits-later", 2, "4", "default", 0);
        h.scheduler.expireDue();
        assertThat(reason(h, "huge")).doesNotContain("next in line");
        assertThat(reason(h, "fits-later")).contains("next in line");
    }

    @Test
    void roomIsSetAsideOnlyForAGangThatWaitedLongEnough() {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi"); // default: after 30 s
        hogs(h, 2, "4");
        List<Pod> big = gang(h, "big", 2, "4", "default", 0);
        h.schedule(big.getFirst());
        h.scheduler.expireDue();
        assertThat(reason(h, "big")).doesNotContain("next in line");
        h.clock.advance(SchedulerConfig.DEFAULT_SET_ASIDE_AFTER);
        h.scheduler.expireDue();
        assertThat(reason(h, "big")).contains("next in line");
    }

    @Test
    void theFirstGangWaitingForItsQueuesCapabilityKeepsTheQuotaItNeeds() {
        SchedulerHarness h = cluster(8, "4", "16Gi");
        h.scheduler.upsertQueue(new QueueSpec("research", QueueState.OPEN, 1, dev.muster.core.testing.Fixtures.res("16", "1Ti"), null, null, true));
        List<Pod> running = gang(h, "small-1", 2, "4", "research", 0);
        running.forEach(h::schedule);
        List<Pod> big = gang(h, "big", 3, "4", "research", 0); // 12 cpu: the queue has 8 left
        h.schedule(big.getFirst());
        h.scheduler.expireDue();
        assertThat(reason(h, "big")).contains("capability");
        List<Pod> small = gang(h, "small-2", 2, "4", "research", 0); // 8 cpu would fit the queue, but big came first
        h.schedule(small.getFirst());
        assertThat(reserved(h, "small-2")).isFalse();
        assertThat(reason(h, "small-2")).contains("waiting behind default/big (first in line for queue research's capability)");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void roomThatFreesUpGoesToQueuesByWeightWhenBothAreFloodedWithIdenticalGangs() {
        SchedulerHarness h = cluster(8, "4", "16Gi");
        h.scheduler.upsertQueue(new QueueSpec("three", QueueState.OPEN, 3, null, null, null, true));
        h.scheduler.upsertQueue(new QueueSpec("one", QueueState.OPEN, 1, null, null, null, true));
        List<Pod> hogs = hogs(h, 8, "4"); // the cluster is full
        List<Pod> firsts = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            firsts.add(gang(h, "one-" + i, 2, "2", "one", 0).getFirst());   // created first: age alone would give "one" the cluster
        }
        for (int i = 0; i < 8; i++) {
            firsts.add(gang(h, "three-" + i, 2, "2", "three", 0).getFirst());
        }
        firsts.forEach(h::schedule); // kube-scheduler tried every gang: refused for room, binds held
        h.scheduler.expireDue();     // a pass: fair shares 24 and 8 cpu
        hogs.forEach(p -> h.scheduler.deletePod(p.uid())); // room frees up 4 cpu at a time
        long three = java.util.stream.IntStream.range(0, 8).filter(i -> reserved(h, "three-" + i)).count();
        long one = java.util.stream.IntStream.range(0, 8).filter(i -> reserved(h, "one-" + i)).count();
        assertThat(three + one).isEqualTo(8); // 32 cpu hold 8 gangs of 4 cpu
        assertThat(three).isEqualTo(6);
        assertThat(one).isEqualTo(2);
        // the pass reports each queue's fair share on the allocation stream (the controller's Queues service shows it)
        assertThat(h.totals().shares().get("three").fairShare().cpuMillis()).isEqualTo(24_000L);
        assertThat(h.totals().shares().get("one").fairShare().cpuMillis()).isEqualTo(8_000L);
        assertThat(h.invariantViolations()).isEmpty();
    }

    /** One case of a turn outside a pass: queue "three" (weight 3, holding nothing) has a gang waiting of this size. */
    record Turn(String name, int threeWaitingPods, boolean oneMustWait) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Turn> turns() {
        return List.of(
                new Turn("a queue further below its share whose gang could start now goes first", 4, true),
                new Turn("a queue further below its share whose gangs cannot start now holds nobody back", 8, false));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("turns")
    void outsideAPassAGangWaitsForItsTurnOnlyWhileAQueueFurtherBelowItsShareHasAGangThatCouldStart(Turn t) {
        SchedulerHarness h = SchedulerHarness.cluster(8, "4", "16Gi"); // set-aside after the default 30 s
        h.scheduler.upsertQueue(new QueueSpec("three", QueueState.OPEN, 3, null, null, null, true));
        h.scheduler.upsertQueue(new QueueSpec("one", QueueState.OPEN, 1, null, null, null, true));
        List<Pod> first = gang(h, "one-0", 2, "4", "one", 0);
        first.forEach(h::schedule); // nothing else waits: admitted at once
        assertThat(reserved(h, "one-0") || first.stream().allMatch(p -> h.binder.bound().containsKey(p.uid()))).isTrue();
        h.scheduler.expireDue();
        gang(h, "three-0", t.threeWaitingPods(), "4", "three", 0); // 4 pods: 16 cpu fit the 24 left; 8 pods: 32 do not

        List<Pod> small = gang(h, "one-1", 1, "2", "one", 0);
        CompletableFuture<BindResult> bind = h.schedule(small.getFirst());
        if (t.oneMustWait()) {
            assertThat(reserved(h, "one-1")).isFalse();
            assertThat(bind).isNotDone(); // held, not refused: the next pass decides
            assertThat(reason(h, "one-1")).contains("waiting for its turn: queue three is further below its fair share")
                    .contains("default/three-0 could start");
        } else {
            assertThat(reserved(h, "one-1") || h.binder.bound().containsKey(small.getFirst().uid())).isTrue();
            assertThat(reason(h, "one-1")).doesNotContain("waiting for its turn");
        }
        assertThat(reserved(h, "three-0")).isFalse();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "the waiting gang of higher priority needs {0} cpu of the 8 free")
    @org.junit.jupiter.params.provider.ValueSource(ints = {8, 12})
    void outsideAPassAGangWaitsForItsTurnWhileAGangOfHigherPriorityCouldStartSoThatItIsNotEvictedForItRightAfter(int highCpu) {
        SchedulerHarness h = SchedulerHarness.cluster(4, "4", "16Gi"); // set-aside after the default 30 s: none here
        List<Pod> running = hogs(h, 4, "4");
        List<Pod> high = gang(h, "high", highCpu / 4, "4", "default", 100);
        h.scheduler.expireDue(); // both wait for room
        List<Pod> low = gang(h, "low", 2, "4", "default", 0);
        h.scheduler.deletePod(running.get(0).uid()); // 8 cpu free
        h.scheduler.deletePod(running.get(1).uid());

        // kube-scheduler asks about the lower gang's members first
        List<CompletableFuture<BindResult>> lowBinds = low.stream().map(h::schedule).toList();
        if (highCpu == 8) {
            assertThat(reserved(h, "low")).as("the room is the higher gang's first: it would evict this one right after").isFalse();
            assertThat(lowBinds).noneMatch(CompletableFuture::isDone); // held, not refused: the next pass decides
            assertThat(reason(h, "low")).contains("waiting for its turn: default/high of higher priority (100 > 0) could start");
            List<CompletableFuture<BindResult>> highBinds = high.stream().map(h::schedule).toList(); // then about the higher gang's
            assertThat(reserved(h, "high") || highBinds.stream().allMatch(f -> f.isDone() && f.join().ok())).isTrue();
            h.scheduler.expireDue();
            assertThat(reserved(h, "low")).as("no room left for it").isFalse();
            assertThat(h.binder.bound().keySet()).noneMatch(uid -> low.stream().anyMatch(p -> p.uid().equals(uid)));
        } else {
            assertThat(reserved(h, "low") || low.stream().allMatch(p -> h.binder.bound().containsKey(p.uid())))
                    .as("a gang of higher priority that cannot start now holds nobody back").isTrue();
        }
        assertThat(high).isNotEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    /** A gang of queue "one", which its capability (4 cpu, all held) cannot take, while something else also stands in its way. */
    record QueueFirst(String name, boolean clusterFull, boolean anotherQueuesTurn) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<QueueFirst> queueFirst() {
        return List.of(
                new QueueFirst("its queue is full and the cluster has no room: refused for the queue, not held for room", true, false),
                new QueueFirst("its queue is full and another queue's gang could start: refused for the queue, not held for a turn", false, true));
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}")
    @org.junit.jupiter.params.provider.MethodSource("queueFirst")
    void aGangItsQueueCannotTakeIsRefusedAtFilterBeforeItsTurnOrRoomAreLookedAt(QueueFirst c) {
        SchedulerHarness h = SchedulerHarness.cluster(2, "4", "16Gi");
        h.scheduler.upsertQueue(new QueueSpec("three", QueueState.OPEN, 3, null, null, null, true));
        h.scheduler.upsertQueue(new QueueSpec("one", QueueState.OPEN, 1, dev.muster.core.testing.Fixtures.res("4", "1Ti"), null, null, true));
        gang(h, "one-0", 1, "4", "one", 0).forEach(h::schedule); // the queue's 4 cpu are held, on one of the two nodes
        if (c.clusterFull()) {
            String other = h.scheduler.ledger().nodes().stream().filter(n -> n.used().isZero() && n.reserved().isZero()).findFirst().orElseThrow().name();
            h.scheduler.upsertPod(pod("hog").requests("4", "1Gi").on(other).build()); // and the other node is full
        }
        h.scheduler.expireDue();
        if (c.anotherQueuesTurn()) {
            gang(h, "three-0", 1, "4", "three", 0); // could start: 4 cpu free, queue three holds nothing
        }
        CompletableFuture<BindResult> bind = h.schedule(gang(h, "one-1", 1, "2", "one", 0).getFirst());

        // refused at filter (kube-scheduler keeps it in its queue), not passed with a held bind that would count the
        // member on a node in kube-scheduler's view while the queue cannot take it anyway
        assertThat(bind).isDone();
        assertThat(bind.join().ok()).isFalse();
        assertThat(reason(h, "one-1")).contains("capability").doesNotContain("waiting for its turn");
        assertThat(h.scheduler.stats().heldBinds()).isZero();
        assertThat(reserved(h, "one-1")).isFalse();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangItsQueueRefusesDoesNotKeepTheGangBehindItFromBeingNextInLine() {
        SchedulerHarness h = cluster(8, "4", "16Gi");
        h.scheduler.upsertQueue(new QueueSpec("a", QueueState.OPEN, 3, dev.muster.core.testing.Fixtures.res("8", "1Ti"), null, null, true));
        h.scheduler.upsertQueue(new QueueSpec("b", QueueState.OPEN, 1, null, null, null, true));
        gang(h, "a-0", 1, "4", "a", 0).forEach(h::schedule); // a holds 4 of its 8
        for (int i = 0; i < 5; i++) {
            gang(h, "b-" + i, 1, "4", "b", 0).forEach(h::schedule); // b holds 20 of its 24: a is further below its share
        }
        gang(h, "a-1", 2, "4", "a", 0);   // first in line, but its queue cannot take 8 more
        gang(h, "b-big", 3, "4", "b", 0); // 12 cpu: 8 are free
        h.scheduler.expireDue(); // neither has members kube-scheduler is waiting on: the pass tries one gang not at hand

        assertThat(reason(h, "a-1")).contains("capability");
        assertThat(h.scheduler.stats().nextInLine()).isEqualTo("default/b-big");
        assertThat(reason(h, "b-big")).contains("next in line");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void thePassReservesOnlyGangsKubeSchedulerIsWaitingOnAndKeepsTheRoomOfEarlierOnesFromLaterOnes() {
        SchedulerHarness h = SchedulerHarness.cluster(3, "4", "16Gi"); // set-aside after the default 30 s
        h.scheduler.upsertQueue(new QueueSpec("three", QueueState.OPEN, 3, null, null, null, true));
        h.scheduler.upsertQueue(new QueueSpec("one", QueueState.OPEN, 1, null, null, null, true));
        List<Pod> hogs = hogs(h, 2, "4");
        gang(h, "one-running", 1, "4", "one", 0).forEach(h::schedule); // on n2: queue "one" holds 4 cpu
        List<Pod> mine = gang(h, "one-0", 1, "4", "one", 0);
        h.schedule(mine.getFirst());           // refused for room: its bind is held
        List<Pod> theirs = gang(h, "three-0", 1, "4", "three", 0); // its member is in kube-scheduler's backoff
        h.scheduler.expireDue();
        h.scheduler.deletePod(hogs.get(0).uid()); // 4 cpu free: three-0 comes first in line (its queue is further below its share)
        h.scheduler.expireDue();
        assertThat(reserved(h, "three-0")).isFalse(); // not reserved while its member is away
        assertThat(reserved(h, "one-0")).isFalse();   // and the held gang behind it does not take its room
        h.schedule(theirs.getFirst());
        assertThat(reserved(h, "three-0") || h.binder.bound().containsKey(theirs.getFirst().uid())).isTrue();
        assertThat(h.invariantViolations()).isEmpty();
    }
}
