package dev.muster.bench;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A preemption decision at scale: 5,000 nodes (32 cpu, plus 1 cpu for each other scheduler's pod), full with 1,000 running gangs of 40 × 4 cpu (five nodes
 * each, 40,000 pods, priorities 0–9) and {@code others} single pods of another scheduler (1 cpu, priority 0, spread
 * evenly: Muster counts their room but never evicts them), and a waiting gang of {@code members} × 4 cpu of priority
 * 100 in the same queue.
 * Measured: the whole decision as the tick makes it — victim candidates from the books, the whole-gang plans (shortest
 * prefix by bisection, reprieve) — through the dry run, which decides exactly as the tick does and changes nothing.
 * Sampled, so the percentiles are the decision's (p99 is what a filter waiting behind the core's lock could see).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
public class PreemptionBenchmark {

    @State(Scope.Benchmark)
    public static class Full {
        /** Members of the waiting gang: 16 need one victim gang, 200 need five. */
        @Param({"16", "200"})
        int members;
        /** Running single pods of another scheduler (default-scheduler), at most 10 a node. */
        @Param({"0", "50000"})
        int others;
        GangScheduler scheduler;
        GangKey preemptor = new GangKey("bench", "urgent");

        @Setup(Level.Trial)
        public void setUp() {
            Evictor evictor = (pod, why) -> CompletableFuture.completedFuture(new EvictionOutcome.Evicted());
            scheduler = new GangScheduler(SchedulerConfig.DEFAULT, (pod, node) -> CompletableFuture.completedFuture(null), evictor,
                    DisruptionBudgets.NONE, new AllocationJournal(1 << 16, java.time.InstantSource.system()), System::nanoTime);
            scheduler.upsertQueue(QueueSpec.open("default", null));
            long otherCpu = (others + 4_999) / 5_000 * 1_000L; // room for the other scheduler's pods, so that the nodes stay full
            for (int n = 0; n < 5_000; n++) {
                scheduler.upsertNode(Node.of(String.format("node-%05d", n), ClusterModel.res(32_000 + otherCpu, 128 + otherCpu / 1_000 * 4, 0)));
            }
            for (int g = 0; g < 1_000; g++) {
                GangKey key = new GangKey("bench", "run-" + g);
                scheduler.upsertPodGroup(PodGroupSpec.of(key, 40, "default"));
                for (int i = 0; i < 40; i++) {
                    String uid = "run-" + g + "-" + i;
                    String node = String.format("node-%05d", g * 5 + i / 8);
                    scheduler.upsertPod(new Pod(new PodId(uid, "bench", uid), "1", ClusterModel.podRequest(4_000, 16_384), key, "",
                            g % 10, node, PodPhase.RUNNING));
                }
            }
            for (int i = 0; i < others; i++) {
                String uid = "other-" + i;
                scheduler.upsertPod(new Pod(new PodId(uid, "bench", uid), "1", ClusterModel.podRequest(1_000, 1_024), null, "", 0,
                        String.format("node-%05d", i % 5_000), PodPhase.RUNNING, "", "default-scheduler", false));
            }
            scheduler.upsertPodGroup(PodGroupSpec.of(preemptor, members, "default"));
            for (int i = 0; i < members; i++) {
                String uid = "urgent-" + i;
                scheduler.upsertPod(new Pod(new PodId(uid, "bench", uid), "1", ClusterModel.podRequest(4_000, 16_384), preemptor, "",
                        100, null, PodPhase.PENDING));
            }
            scheduler.markSynced();
            if (!(scheduler.preemptionAdvice(preemptor) instanceof PreemptionAdvice.Preempt p) || p.victims().size() != (members + 39) / 40) {
                throw new IllegalStateException("the benchmark's cluster does not ask for the expected preemption: "
                        + scheduler.preemptionAdvice(preemptor));
            }
        }
    }

    /**
     * The same decision timed by the CPU the deciding thread spends (what it holds the core's lock for, less any time
     * the machine gives its core to others): {@code --decisions} after as many to warm up, percentiles printed.
     */
    public static void main(String[] args) {
        java.util.Map<String, String> a = BenchArgs.parse(new java.util.LinkedHashMap<>(java.util.Map.of("members", "16", "others", "50000",
                "decisions", "2000")), args);
        Full s = new Full();
        s.members = Integer.parseInt(a.get("members"));
        s.others = Integer.parseInt(a.get("others"));
        s.setUp();
        int n = Integer.parseInt(a.get("decisions"));
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long[] cpu = new long[n];
        long[] wall = new long[n];
        for (int round = 0; round < 2; round++) { // the first round warms the JIT up
            for (int i = 0; i < n; i++) {
                long c0 = threads.getCurrentThreadCpuTime();
                long w0 = System.nanoTime();
                s.scheduler.preemptionAdvice(s.preemptor);
                wall[i] = System.nanoTime() - w0;
                cpu[i] = threads.getCurrentThreadCpuTime() - c0;
            }
        }
        java.util.Arrays.sort(cpu);
        java.util.Arrays.sort(wall);
        System.out.printf(java.util.Locale.ROOT, "members=%d others=%d decisions=%d  CPU ms p50 %.2f p90 %.2f p99 %.2f max %.2f  |  wall ms p50 %.2f p90 %.2f p99 %.2f max %.2f%n",
                s.members, s.others, n, cpu[n / 2] / 1e6, cpu[n * 9 / 10] / 1e6, cpu[n * 99 / 100] / 1e6, cpu[n - 1] / 1e6,
                wall[n / 2] / 1e6, wall[n * 9 / 10] / 1e6, wall[n * 99 / 100] / 1e6, wall[n - 1] / 1e6);
    }

    /** One whole preemption decision for the waiting gang (nothing is changed). */
    @Benchmark
    public Object decide(Full s) {
        return s.scheduler.preemptionAdvice(s.preemptor);
    }
}
