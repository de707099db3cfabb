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

        QueuesCli.printChanges(updates.iterator(), new PrintStream(out, true, StandardCharsets.UTF_8), () -> "t" + tick.incrementAndGet());

        assertThat(out.toString(StandardCharsets.UTF_8).lines()).containsExactly(
                "t1  etl Open allocated cpu=1,memory=1Gi of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 1, completed 0; reservations 0",
                "t2  ml Open allocated 0 of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 0, completed 0; reservations 0",
                "t3  etl Open allocated cpu=2,memory=2Gi of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 2, completed 0; reservations 0",
                "t4  ml deleted",
                "t5  ml Open allocated 0 of cpu=16,memory=64Gi; fair share -, borrowed -; podgroups pending 0, inqueue 0, running 0, completed 0; reservations 0");
    }
}
