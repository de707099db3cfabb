package dev.muster.demo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.proto.v1.GangInfo;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.GangState;
import dev.muster.proto.v1.QueueInfo;
import dev.muster.proto.v1.ResourceList;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What the CLI prints, from the messages the controller sends (no controller needed). */
class QueuesCliOutputTest {
    private static final long GI = 1L << 30;
    private static final long MI = 1L << 20;

    private static GangInfo gang(String phase, GangState state, String reason) {
        return GangInfo.newBuilder().setGang(GangRef.newBuilder().setNamespace("data").setName("etl-1")).setQueue("etl")
                .setPhase(phase).setState(state).setReason(reason).setMinMember(4).setSucceeded(4).build();
    }

    @Test
    void aFinishedGangShowsItsPhaseAndNoStaleSchedulerState() {
        String out = QueuesCli.gang(gang("Completed", GangState.GANG_STATE_WAITING, "gang data/etl-1: 0/4 pods exist"));

        assertThat(out).contains("phase      Completed\n", "scheduler  - (finished: nothing is held or planned for it)\n", "reason     -\n")
                .doesNotContain("WAITING", "0/4 pods exist");
    }

    @Test
    void anUnfinishedGangShowsTheSchedulersStateAndReason() {
        String out = QueuesCli.gang(gang("Pending", GangState.GANG_STATE_UNSCHEDULABLE, "needs 4×(4 cpu), fits 2"));

        assertThat(out).contains("phase      Pending\n", "scheduler  UNSCHEDULABLE\n", "reason     needs 4×(4 cpu), fits 2\n");
        assertThat(out.indexOf("phase")).as("the phase first").isLessThan(out.indexOf("scheduler"));
        assertThat(QueuesCli.gang(gang("Pending", GangState.GANG_STATE_UNSPECIFIED, ""))).contains("scheduler  -\n", "reason     -\n");
    }

    private static QueueInfo queue(String name, long cpuMillis, long memory, int running) {
        return QueueInfo.newBuilder().setName(name).setState("Open").setWeight(1).setRunning(running)
                .setAllocated(ResourceList.newBuilder().putAllAmounts(Map.of("cpu", cpuMillis, "memory", memory)))
                .setCapability(ResourceList.newBuilder().putAllAmounts(Map.of("cpu", 16_000L, "memory", 64 * GI))).build();
    }

    @Test
    void allocatedAndCapabilityOfAResourceAreWrittenInOneUnit() {
        QueueInfo q = queue("etl", 12_500, 1536 * MI, 3);

        assertThat(QueuesCli.line(q)).contains("allocated cpu=12.5,memory=1.5Gi of cpu=16,memory=64Gi;");
        assertThat(QueuesCli.table(List.of(q))).containsPattern("etl +Open +1 +cpu=12.5,memory=1.5Gi +cpu=16,memory=64Gi +- +- +0 +0 +3 ");
    }

    @Test
    void fairShareAndBorrowingAreShownOnceTheExtenderReportedThem() {
        QueueInfo q = queue("etl", 12_500, 1536 * MI, 3).toBuilder()
                .setFairShare(ResourceList.newBuilder().putAllAmounts(Map.of("cpu", 10_000L, "memory", 2 * GI)))
                .setBorrowed(ResourceList.newBuilder().putAllAmounts(Map.of("cpu", 2_500L))).build();

        assertThat(QueuesCli.table(List.of(q))).contains("FAIR SHARE", "BORROWED")
                .containsPattern("etl +Open +1 +cpu=12.5,memory=1.5Gi +cpu=16,memory=64Gi +cpu=10,memory=2Gi +cpu=2.5 +0 +0 +3 ");
        assertThat(QueuesCli.line(q)).contains("; fair share cpu=10,memory=2Gi, borrowed cpu=2.5;");
        assertThat(QueuesCli.line(q.toBuilder().clearBorrowed().build())).as("a share and nothing borrowed").contains("borrowed 0;");
    }

    @Test
    void whatReclaimAndPriorityTookAndGaveIsShownPerQueue() {
        QueueInfo q = queue("etl", 12_500, 1536 * MI, 3).toBuilder().setPreemptions(dev.muster.proto.v1.QueuePreemptions.newBuilder()
                .setLostToReclaimPods(2).setLostToReclaim(ResourceList.newBuilder().putAllAmounts(Map.of("cpu", 4_000L, "memory", 8 * GI)))
                .setPreemptedPods(1).setPreempted(ResourceList.newBuilder().putAllAmounts(Map.of("cpu", 500L)))).build();

        assertThat(QueuesCli.table(List.of(q))).contains("LOST TO RECLAIM", "WON BY RECLAIM", "PREEMPTED")
                .containsPattern("etl .* 2 \\(cpu=4,memory=8Gi\\) +0 +1 \\(cpu=0.5\\)\n");
        assertThat(QueuesCli.line(q)).endsWith("; lost to reclaim 2 (cpu=4,memory=8Gi), won by reclaim 0, preempted 1 (cpu=0.5)");
        assertThat(QueuesCli.line(queue("etl", 0, 0, 0))).as("nothing preempted: nothing said").doesNotContain("reclaim");
    }

    @Test
    void watchPrintsALineOnlyWhenAQueueChanged() {
        List<QueueInfo> updates = List.of(
                queue("etl", 1000, GI, 1), queue("ml", 0, 0, 0),
                queue("etl", 1000, GI, 1), queue("ml", 0, 0, 0), queue("etl", 1000, GI, 1), // the controller repeating itself
                queue("etl", 2000, 2 * GI, 2),
                queue("etl", 2000, 2 * GI, 2),
                QueueInfo.newBuilder().setName("ml").setDeleted(true).build(), QueueInfo.newBuilder().setName("ml").setDeleted(true).build(),
                queue("ml", 0, 0, 0));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        AtomicInteger tick = new AtomicInteger();

        AtomicLong now = new AtomicLong();
        QueuesCli.printChanges(updates.iterator(), new PrintStream(out, true, StandardCharsets.UTF_8), () -> "t" + tick.incrementAndGet(),
                () -> now.addAndGet(1_000_000_000L), false); // one update a second: none held back

        assertThat(out.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "t1  etl Open allocated cpu=1,memory=1Gi of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 1, completed 0; reservations 0",
                "t2  ml Open allocated 0 of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 0, completed 0; reservations 0",
                "t3  etl Open allocated cpu=2,memory=2Gi of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 2, completed 0; reservations 0",
                "t4  ml deleted",
                "t5  ml Open allocated 0 of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 0, completed 0; reservations 0");
    }

    @Test
    void watchPrintsAtMostOneLinePerQueuePerSecondAndTheLatestLineLast() {
        // 12 seconds of a busy controller: two queues, each changing 17 times a second (about 400 updates)
        List<QueueInfo> updates = new java.util.ArrayList<>();
        List<Long> at = new java.util.ArrayList<>();
        for (int i = 0; i < 12 * 17; i++) {
            updates.add(queue("etl", 1000 + i, GI, 1));
            updates.add(queue("ml", 1000 + i, GI, 1));
            at.add(i * 1_000_000_000L / 17);
            at.add(i * 1_000_000_000L / 17);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        java.util.Iterator<Long> times = at.iterator();

        QueuesCli.printChanges(updates.iterator(), new PrintStream(out, true, StandardCharsets.UTF_8), () -> "t", times::next, false);

        List<String> lines = out.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines.stream().filter(l -> l.startsWith("t  etl "))).hasSizeBetween(12, 13);
        assertThat(lines.stream().filter(l -> l.startsWith("t  ml "))).hasSizeBetween(12, 13);
        assertThat(lines.subList(lines.size() - 2, lines.size())).as("the last state of each queue is printed")
                .containsExactlyInAnyOrder("t  " + QueuesCli.line(updates.get(updates.size() - 2)), "t  " + QueuesCli.line(updates.getLast()));
    }

    @Test
    void gangsListsTheOnesNotRunningFirstWithTheirReasonsAndHidesFinishedOnes() {
        List<GangInfo> gangs = List.of(
                named("ml", "train-2", "Running", GangState.GANG_STATE_BOUND, ""),
                named("data", "etl-9", "Completed", GangState.GANG_STATE_WAITING, "stale"),
                named("ml", "train-1", "Pending", GangState.GANG_STATE_WAITING, "gang ml/train-1: needs 4×(1 cpu), fits 3"),
                named("data", "etl-3", "Inqueue", GangState.GANG_STATE_RESERVED, ""));

        List<String> lines = QueuesCli.gangs(gangs, false).lines().toList();

        assertThat(lines.getFirst()).startsWith("GANG").contains("QUEUE", "PHASE", "SCHEDULER", "REASON");
        assertThat(lines.subList(1, 4)).satisfiesExactly(
                l -> assertThat(l).startsWith("data/etl-3 ").contains("Inqueue", "RESERVED"),
                l -> assertThat(l).startsWith("ml/train-1 ").contains("Pending", "WAITING", "gang ml/train-1: needs 4×(1 cpu), fits 3"),
                l -> assertThat(l).startsWith("ml/train-2 ").contains("Running", "BOUND"));
        assertThat(lines.getLast()).isEqualTo("1 finished gangs not shown (--all shows them)");
        assertThat(QueuesCli.gangs(gangs, true)).contains("data/etl-9").doesNotContain("stale");
        assertThat(QueuesCli.gangs(List.of(), false)).isEqualTo("no gangs\n");
    }

    private static GangInfo named(String namespace, String name, String phase, GangState state, String reason) {
        return GangInfo.newBuilder().setGang(GangRef.newBuilder().setNamespace(namespace).setName(name)).setQueue("q")
                .setPhase(phase).setState(state).setReason(reason).setMinMember(4).build();
    }
}
