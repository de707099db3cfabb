package dev.muster.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.time.Backoff;
import dev.muster.controller.writer.FakeTicker;
import dev.muster.controller.writer.WriterCounters;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.ManualClock;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusKey;
import dev.muster.core.model.GangState;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Restarts and takeovers: converge from list + snapshot, and never rewrite what the API already shows. */
class ControllerTest {
    private static final Resources CPU = Resources.builder().set(ResourceNames.CPU, 1000).build();
    private final ManualClock clock = ManualClock.at("2025-01-01T00:00:00Z");
    private final FakeTicker ticker = new FakeTicker();
    private final ExecutorService watchExecutor = Executors.newSingleThreadExecutor();
    private final World world = new World(16);

    @AfterEach
    void stop() {
        watchExecutor.shutdownNow();
    }

    private Controller controller(WriterCounters counters) {
        return new Controller(new Controller.Settings(1000, 1000, Controller.Settings.WRITE_BACKOFF), world.api, clock, ticker, watchExecutor, counters);
    }

    private StatusKey pg(String name) {
        return StatusKey.podGroup(World.key(name));
    }

    private void flush(Controller c) {
        ticker.advance(Duration.ofSeconds(1));
        c.flush();
    }

    /** A world with two queues and gangs in several phases, written to the API by a first controller. */
    private Controller converged() {
        world.queue("a").queue("b");
        Controller first = controller(new WriterCounters());
        world.start(first);
        world.stream(); // the journal is empty: synced, warm
        first.setLeading(true);
        world.runGang("running", 3, "a", CPU).runGang("done", 2, "b", CPU);
        world.podGroup("waiting", 4, "a").pod("waiting-0", "waiting", PodPhase.PENDING, false)
                .gang("waiting", GangState.UNSCHEDULABLE, "gang ns/waiting: 1/4 pods exist");
        world.pod("done-0", "done", PodPhase.SUCCEEDED, true).pod("done-1", "done", PodPhase.SUCCEEDED, true)
                .release("done-0", "done", CPU).release("done-1", "done", CPU).deletePod("done-0").deletePod("done-1");
        for (int i = 0; i < 40; i++) { // more events than the journal's window: a late reader needs a snapshot
            world.allocate("extra-" + i, "running", CPU).release("extra-" + i, "running", CPU);
        }
        world.stream();
        flush(first);
        world.echoStatus();
        for (StatusKey k : world.keys()) {
            assertThat(world.api.inApi(k)).as(k.toString()).isEqualTo(first.fold().desired(k));
        }
        assertThat(((PodGroupStatus) world.api.inApi(pg("done"))).phase()).isEqualTo(PodGroupPhase.COMPLETED);
        world.api.takeCalls();
        return first;
    }

    @Test
    void restartConvergesFromListAndSnapshotWithoutRewritingAnything() {
        Controller first = converged();
        world.stop(first);
        first.close();
        clock.advance(Duration.ofHours(1)); // a new process, later: transition times must come from the API, not from now

        WriterCounters counters = new WriterCounters();
        Controller second = controller(counters);
        second.setLeading(true);
        world.start(second);
        assertThat(second.flush().written()).as("no writes before the stream has synced").isZero();
        world.stream();
        assertThat(second.allocations().snapshots()).as("fell out of the window: resumed from a snapshot").isEqualTo(1);
        flush(second);

        assertThat(world.api.takeCalls()).isEmpty();
        assertThat(counters.snapshot().skipped()).isEqualTo(world.keys().size());
        for (StatusKey k : world.keys()) {
            assertThat(second.fold().desired(k)).as(k.toString()).isEqualTo(world.api.inApi(k));
        }
        assertThat(((PodGroupStatus) second.fold().desired(pg("done"))).phase())
                .as("completed, though its pods are gone: seeded from the observed status").isEqualTo(PodGroupPhase.COMPLETED);

        world.pod("running-0", "running", PodPhase.SUCCEEDED, true).release("running-0", "running", CPU).stream();
        flush(second);
        assertThat(world.api.takeCalls()).containsExactlyInAnyOrder(pg("running"), StatusKey.queue("a"));
        assertThat(((QueueStatus) world.api.inApi(StatusKey.queue("a"))).allocated()).isEqualTo(CPU.times(2));
    }

    @Test
    void aLeaderWritesNothingUntilItIsWarm() {
        world.queue("a");
        world.runGang("g", 2, "a", CPU);
        Controller c = controller(new WriterCounters());
        c.setLeading(true);
        assertThat(c.notReadyReason()).contains("cluster list", "allocation stream");
        world.start(c);
        flush(c);
        assertThat(c.writing()).isFalse();
        assertThat(c.notReadyReason()).isEqualTo("waiting for the allocation stream");
        assertThat(world.api.callCount()).as("half a picture (no allocations yet) is never written").isZero();
        world.stream();
        assertThat(c.notReadyReason()).isNull();
        flush(c);
        assertThat(((QueueStatus) world.api.inApi(StatusKey.queue("a"))).allocated()).isEqualTo(CPU.times(2));
    }

    @Test
    void takeoverWritesOnlyWhatTheOldLeaderDidNotGetTo() {
        Controller first = converged();
        clock.advance(Duration.ofMinutes(10));
        WriterCounters standbyCounters = new WriterCounters();
        Controller standby = controller(standbyCounters);
        world.start(standby);
        world.stream();
        assertThat(standby.notReadyReason()).as("standbys are warm and ready").isNull();

        // the leader writes one more round; the standby folds the same inputs and sees the writes' echoes
        world.pod("running-0", "running", PodPhase.SUCCEEDED, true).release("running-0", "running", CPU).stream();
        flush(first);
        flush(standby);
        world.echoStatus();
        assertThat(world.api.takeCalls()).containsExactlyInAnyOrder(pg("running"), StatusKey.queue("a"));
        // then a change the leader never writes: it loses the Lease
        world.pod("waiting-1", "waiting", PodPhase.PENDING, false).pod("waiting-2", "waiting", PodPhase.PENDING, false)
                .pod("waiting-3", "waiting", PodPhase.PENDING, false).gang("waiting", GangState.RESERVED, "").stream();
        first.setLeading(false);
        world.stop(first);

        standby.setLeading(true);
        flush(standby);

        assertThat(world.api.takeCalls()).as("only the objects the API shows wrong").containsExactlyInAnyOrder(pg("waiting"), StatusKey.queue("a"));
        assertThat(standbyCounters.snapshot().skipped()).isEqualTo(world.keys().size() - 2);
        assertThat(((PodGroupStatus) world.api.inApi(pg("waiting"))).phase()).isEqualTo(PodGroupPhase.INQUEUE);
        for (StatusKey k : world.keys()) {
            assertThat(world.api.inApi(k)).as(k.toString()).isEqualTo(standby.fold().desired(k));
        }
    }

    @Test
    void pendingWorkIsBoundedByObjectsUnderChurn() {
        world.queue("a");
        Controller c = controller(new WriterCounters());
        world.start(c);
        c.setLeading(true);
        for (int round = 0; round < 50; round++) {
            String g = "g" + round;
            world.runGang(g, 3, "a", CPU);
            for (int i = 0; i < 3; i++) {
                world.pod(g + "-" + i, g, PodPhase.SUCCEEDED, true).release(g + "-" + i, g, CPU);
            }
            if (round >= 10) { // keep ten alive
                String old = "g" + (round - 10);
                for (int i = 0; i < 3; i++) {
                    world.deletePod(old + "-" + i);
                }
                world.deletePodGroup(old);
            }
            world.stream();
            assertThat(c.pendingWrites()).isLessThanOrEqualTo(c.objects());
            if (round % 5 == 0) {
                flush(c);
            }
        }
        flush(c);
        assertThat(c.objects()).isEqualTo(11);
        assertThat(c.foldStats().memberPods()).isEqualTo(30);
        assertThat(c.foldStats().gangRecords()).isEqualTo(10);
        assertThat(c.pendingWrites()).isZero();
    }

    @Test
    void aLeaderRecordsOneEventWhenARunningGangLosesAMemberAndAStandbyNone() {
        world.queue("a");
        java.util.List<dev.muster.core.status.GangNote> events = new java.util.ArrayList<>();
        Controller c = new Controller(new Controller.Settings(1000, 1000, Controller.Settings.WRITE_BACKOFF), world.api, events::add,
                clock, ticker, watchExecutor, new WriterCounters());
        world.start(c);
        world.stream();
        world.runGang("train", 3, "a", CPU);
        world.stream();
        world.deletePod("train-1");
        flush(c);
        assertThat(events).as("standing by: nothing recorded").isEmpty();

        c.setLeading(true);
        world.pod("train-1", "train", PodPhase.RUNNING, true);
        world.deletePod("train-2");
        flush(c);
        flush(c);
        assertThat(events).extracting(dev.muster.core.status.GangNote::note)
                .containsExactly("3 of minimum 3 members bound; whole again", "2 of minimum 3 members bound; lost: train-2");
        assertThat(c.pendingEvents()).isZero();
    }

    @Test
    void aPreemptionMarksTheVictimsPodGroupTellsBothSidesAndSurvivesARestart() {
        world.queue("a");
        java.util.List<dev.muster.core.status.GangNote> events = new java.util.ArrayList<>();
        Controller c = new Controller(new Controller.Settings(1000, 1000, Controller.Settings.WRITE_BACKOFF), world.api, events::add,
                clock, ticker, watchExecutor, new WriterCounters());
        c.setLeading(true);
        world.start(c);
        world.stream();
        world.runGang("low", 2, "a", CPU);
        world.podGroup("big", 2, "a").pod("big-0", "big", PodPhase.PENDING, false).pod("big-1", "big", PodPhase.PENDING, false);
        world.stream();
        flush(c);
        world.preempt("big", "low", 2, CPU).stream();
        flush(c);

        String told = "preempted by ns/big (priority 1000) to place 2 pods; evicting 2 of its pods";
        assertThat(events).extracting(e -> e.gang().name() + " " + e.reason() + ": " + e.note())
                .containsExactly("low Preempted: " + told, "big Preempting: preempting 1 gang (2 pods) on 1 node");
        dev.muster.core.status.PodGroupCondition written = ((PodGroupStatus) world.api.inApi(pg("low")))
                .condition(dev.muster.core.status.PodGroupCondition.PREEMPTED);
        assertThat(written.status()).isEqualTo("True");
        assertThat(written.message()).isEqualTo(told);

        world.echoStatus();
        world.stop(c);
        c.close();
        Controller second = controller(new WriterCounters());
        second.setLeading(true);
        world.start(second);
        world.stream();
        world.api.takeCalls();
        flush(second);
        assertThat(world.api.takeCalls()).as("a restart keeps the condition: nothing to rewrite").isEmpty();

        world.deletePod("low-0").deletePod("low-1");
        flush(second);
        assertThat(((PodGroupStatus) world.api.inApi(pg("low"))).condition(dev.muster.core.status.PodGroupCondition.PREEMPTED).status())
                .as("evicted whole: still disrupted").isEqualTo("True");
        world.pod("low-2", "low", PodPhase.PENDING, false).pod("low-3", "low", PodPhase.PENDING, false);
        flush(second);
        PodGroupStatus waiting = (PodGroupStatus) world.api.inApi(pg("low"));
        assertThat(waiting.phase()).as("made again, waiting: not finished").isEqualTo(dev.muster.core.status.PodGroupPhase.PENDING);
        assertThat(waiting.condition(dev.muster.core.status.PodGroupCondition.SCHEDULED)).isNull();
        QueueStatus a = (QueueStatus) world.api.inApi(StatusKey.queue("a"));
        assertThat(a.pending() + a.inqueue()).as("low and big wait").isEqualTo(2);
        assertThat(a.completed()).isZero();
        world.pod("low-2", "low", PodPhase.RUNNING, true).pod("low-3", "low", PodPhase.RUNNING, true);
        flush(second);
        assertThat(((PodGroupStatus) world.api.inApi(pg("low"))).condition(dev.muster.core.status.PodGroupCondition.PREEMPTED).status())
                .as("running whole again").isEqualTo("False");
    }
}
