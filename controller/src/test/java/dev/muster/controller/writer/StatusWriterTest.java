package dev.muster.controller.writer;

import static dev.muster.controller.writer.WriterRig.pg;
import static dev.muster.controller.writer.WriterRig.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.core.model.PodPhase;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.StatusKey;
import dev.muster.core.model.GangState;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StatusWriterTest {

    @Test
    void writesEachDirtyObjectOncePerFlushNotOncePerEvent() {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("pg", 3, "q").pods("pg", 3, PodPhase.PENDING, false);
        for (int i = 0; i < 50; i++) { // many events between two flushes
            r.d.gang("pg", GangState.RESERVED, "").pods("pg", 3, PodPhase.PENDING, true).gang("pg", GangState.BOUND, "")
                    .pods("pg", 3, PodPhase.RUNNING, true).allocate("p" + i, "pg", "q", dev.muster.core.status.FoldDriver.cpu(10));
        }
        StatusWriter.FlushResult f = r.tick();
        assertThat(r.api.takeCalls()).containsExactlyInAnyOrder(queue("q"), pg("pg"));
        assertThat(f.written()).isEqualTo(2);
        assertThat(r.api.inApi(pg("pg"))).isEqualTo(r.d.pg("pg"));
        assertThat(r.api.inApi(queue("q"))).isEqualTo(r.d.q("q"));
        assertThat(r.tick().written()).as("nothing changed since").isZero();
    }

    @Test
    void skipsAnObjectWhoseDesiredStatusIsAlreadyWritten() {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("pg", 1, "q");
        r.tick();
        r.api.takeCalls();
        r.d.pod("pg-0", "pg", PodPhase.RUNNING, true).deletePod("pg-0"); // changes, then changes back... almost
        r.dirty.mark(pg("pg"));
        r.dirty.mark(queue("q"));
        StatusWriter.FlushResult f = r.tick();
        // Running then Unknown: the PodGroup really changed; the queue's counts changed back to where they were
        assertThat(r.api.takeCalls()).containsExactlyInAnyOrder(pg("pg"), queue("q"));
        r.dirty.mark(pg("pg"));
        r.dirty.mark(queue("q"));
        f = r.tick();
        assertThat(f.skipped()).isEqualTo(2);
        assertThat(r.api.takeCalls()).isEmpty();
    }

    @ParameterizedTest(name = "{0} twice, then success")
    @EnumSource(value = Kind.class, names = {"CONFLICT", "THROTTLED", "SERVER_ERROR", "TIMEOUT"})
    void failedWritesAreRetriedAsOneEntryAndConverge(Kind kind) {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("pg", 2, "q");
        r.api.failNext(pg("pg"), kind, kind);
        assertThat(r.tick().failed()).isEqualTo(1);
        for (int i = 0; i < 10; i++) { // the object keeps changing while its write fails
            r.d.pod("pg-" + i, "pg", PodPhase.RUNNING, true);
            r.tick();
            assertThat(r.dirty.size()).isLessThanOrEqualTo(r.d.fold.objectCount());
        }
        for (int i = 0; i < 10 && r.dirty.size() > 0; i++) {
            r.tick();
        }
        assertThat(r.api.inApi(pg("pg"))).isEqualTo(r.d.pg("pg"));
        assertThat(((PodGroupStatus) r.api.inApi(pg("pg"))).running()).isEqualTo(10);
        assertThat(r.counters.snapshot().failuresByKind()).containsEntry(kind, 2L);
        assertThat(r.counters.snapshot().retries()).isEqualTo(2);
        assertThat(r.dirty.size()).isZero();
    }

    @Test
    void aFailingObjectBacksOffOnItsOwnWhileOthersAreWritten() {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("bad", 1, "q").podGroup("good", 1, "q");
        Kind[] fail = new Kind[12];
        java.util.Arrays.fill(fail, Kind.SERVER_ERROR);
        r.api.failNext(pg("bad"), fail);
        List<Integer> badCalls = new ArrayList<>();
        for (int t = 1; t <= 70; t++) {
            r.d.pod("good-" + t, "good", t % 2 == 0 ? PodPhase.RUNNING : PodPhase.SUCCEEDED, true);
            r.tick();
            List<StatusKey> calls = r.api.takeCalls();
            assertThat(calls).as("tick %d", t).contains(pg("good"));
            if (calls.contains(pg("bad"))) {
                badCalls.add(t);
            }
        }
        // backoff 0.5 s, 1 s, 2 s, 4 s, 8 s, 16 s, then capped at 30 s; flushes come every second
        assertThat(badCalls).containsExactly(1, 2, 3, 5, 9, 17, 33, 63);
    }

    @Test
    void throttledWriteWaitsForRetryAfter() {
        WriterRig r = new WriterRig();
        r.d.queue("q");
        r.api.failNext(queue("q"), Kind.THROTTLED); // the fake sends Retry-After: 3
        r.tick();
        r.tick();
        r.tick();
        assertThat(r.api.takeCalls()).containsExactly(queue("q"));
        r.tick();
        assertThat(r.api.takeCalls()).containsExactly(queue("q"));
        assertThat(r.api.inApi(queue("q"))).isEqualTo(r.d.q("q"));
    }

    @Test
    void convergesUnderRandomFailuresWithPendingBoundedByObjects() {
        WriterRig r = new WriterRig(20, 40);
        Random random = new Random(42);
        Kind[] kinds = {Kind.CONFLICT, Kind.THROTTLED, Kind.SERVER_ERROR, Kind.TIMEOUT};
        for (int q = 0; q < 5; q++) {
            r.d.queue("q" + q);
        }
        for (int g = 0; g < 100; g++) {
            r.d.podGroup("g" + g, 2, "q" + g % 5);
        }
        r.api.failRandomly(random, 0.3, kinds);
        for (int t = 0; t < 120; t++) {
            for (int e = 0; e < 200; e++) {
                int g = random.nextInt(100);
                PodPhase phase = PodPhase.values()[random.nextInt(4)];
                r.d.pod("g" + g + "-" + random.nextInt(3), "g" + g, phase, random.nextBoolean());
                if (random.nextInt(10) == 0) {
                    r.d.gang("g" + g, GangState.values()[random.nextInt(7)], "reason " + random.nextInt(3));
                }
            }
            StatusWriter.FlushResult f = r.tick();
            assertThat(f.pendingAfter()).isLessThanOrEqualTo(r.d.fold.objectCount());
            assertThat(f.written()).as("never more than the budget").isLessThanOrEqualTo(40);
        }
        assertThat(r.counters.snapshot().failures()).isPositive();
        r.api.failRandomly(random, 0, kinds);
        for (int t = 0; t < 300 && r.dirty.size() > 0; t++) {
            r.tick();
        }
        assertThat(r.dirty.size()).isZero();
        for (int g = 0; g < 100; g++) {
            assertThat(r.api.inApi(pg("g" + g))).as("g" + g).isEqualTo(r.d.pg("g" + g));
        }
        for (int q = 0; q < 5; q++) {
            assertThat(r.api.inApi(queue("q" + q))).isEqualTo(r.d.q("q" + q));
        }
    }

    @Test
    void stopsAtTheBudgetAndLeavesTheRestPending() {
        WriterRig r = new WriterRig(20, 40);
        for (int g = 0; g < 100; g++) {
            r.d.podGroup("g" + g, 1, "q");
        }
        StatusWriter.FlushResult first = r.tick();
        assertThat(first.written()).isEqualTo(40);
        assertThat(first.outOfBudget()).isTrue();
        assertThat(first.pendingAfter()).isEqualTo(60);
        assertThat(r.tick().written()).isEqualTo(20);
        assertThat(r.tick().written()).isEqualTo(20);
        StatusWriter.FlushResult last = r.tick();
        assertThat(last.written()).isEqualTo(20);
        assertThat(last.pendingAfter()).isZero();
        assertThat(r.counters.snapshot().maxLagNanos()).isEqualTo(4_000_000_000L);
    }

    @Test
    void queuesAreNotStuckBehindThousandsOfDirtyPodGroups() {
        WriterRig r = new WriterRig(20, 40);
        for (int g = 0; g < 1000; g++) {
            r.d.podGroup("g" + g, 1, "elsewhere");
        }
        for (int q = 0; q < 10; q++) {
            r.d.queue("q" + q);
        }
        r.tick();
        List<StatusKey> calls = r.api.takeCalls();
        assertThat(calls).hasSize(40);
        assertThat(calls.stream().filter(k -> k instanceof StatusKey.Queue)).as("every queue, in the first flush").hasSize(10);
    }

    @Test
    void standbyWritesNothingAndTakeoverSkipsWhatTheApiAlreadyShows() {
        WriterRig r = new WriterRig();
        r.writer.setLeader(false);
        r.d.queue("q").podGroup("same", 1, "q").podGroup("stale", 1, "q").pods("stale", 1, PodPhase.RUNNING, true);
        // the informer shows what the previous leader wrote
        r.lastWritten.observed(pg("same"), r.d.pg("same"));
        r.lastWritten.observed(queue("q"), r.d.q("q"));
        r.lastWritten.observed(pg("stale"), new PodGroupStatus(PodGroupPhase.PENDING, List.of(), 0, 0, 0));
        assertThat(r.tick().written()).isZero();
        assertThat(r.api.callCount()).isZero();
        r.writer.setLeader(true);
        StatusWriter.FlushResult f = r.tick();
        assertThat(r.api.takeCalls()).containsExactly(pg("stale"));
        assertThat(f.skipped()).isEqualTo(2);
    }

    @Test
    void leaderIgnoresAnInformerEchoOfItsOlderWrite() {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("pg", 1, "q");
        r.tick();
        PodGroupStatus older = r.d.pg("pg");
        r.d.pod("pg-0", "pg", PodPhase.RUNNING, true);
        r.tick();
        r.api.takeCalls();
        r.lastWritten.observed(pg("pg"), older); // the informer catches up late
        r.dirty.mark(pg("pg"));
        r.tick();
        assertThat(r.api.takeCalls()).isEmpty();
    }

    @Test
    void anObjectDeletedWhileItsWriteIsInFlightLeavesNothingBehind() {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("pg", 1, "q");
        r.api.duringNextCall(() -> r.d.deletePodGroup("pg"));
        r.tick();
        assertThat(r.lastWritten.get(pg("pg"))).isNull();
        assertThat(r.dirty.contains(pg("pg"))).isFalse();
    }

    @Test
    void anObjectDeletedWhileItsFailingWriteIsInFlightLeavesNoRetry() {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("pg", 1, "q");
        r.tick();
        r.d.pod("pg-0", "pg", PodPhase.RUNNING, true);
        r.api.failNext(pg("pg"), Kind.SERVER_ERROR);
        r.api.duringNextCall(() -> r.d.deletePodGroup("pg"));
        r.tick();
        assertThat(r.dirty.contains(pg("pg"))).isFalse();
        assertThat(r.lastWritten.get(pg("pg"))).isNull();
        assertThat(r.dirty.size()).isLessThanOrEqualTo(r.d.fold.objectCount());
    }

    @Test
    void aChangeDuringTheWriteIsWrittenAtTheNextFlush() {
        WriterRig r = new WriterRig();
        r.d.queue("q").podGroup("pg", 1, "q");
        r.api.duringNextCall(() -> r.d.pod("pg-0", "pg", PodPhase.RUNNING, true));
        r.tick();
        r.tick();
        assertThat(r.api.inApi(pg("pg"))).isEqualTo(r.d.pg("pg"));
        assertThat(r.d.pg("pg").phase()).isEqualTo(PodGroupPhase.RUNNING);
    }
}
