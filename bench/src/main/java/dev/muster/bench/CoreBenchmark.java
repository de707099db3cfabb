package dev.muster.bench;

import dev.muster.core.gang.GangPlanner;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeList;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.scoring.ScoringPolicy;
import dev.muster.core.stream.AllocationJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * Core decision costs: planning a 1,000-member gang on 5,000 nodes, filtering a member of such a gang, and
 * filtering one pod over 500 and 5,000 nodes (the per-pod cost kube-scheduler pays serially). Nodes carry 20 running pods each.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
public class CoreBenchmark {

    @State(Scope.Benchmark)
    public static class PlanState {
        Ledger ledger;
        List<GangPlanner.Member> members;
        GangPlanner planner = new GangPlanner(ScoringPolicy.BINPACK);

        @Setup(Level.Trial)
        public void setUp() {
            ledger = ClusterModel.ledger(5_000, 20, 1);
            members = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                members.add(new GangPlanner.Member("m" + i, "worker", ClusterModel.podRequest(4_000, 16_384)));
            }
        }
    }

    /** Plan 1,000 members of 4 cpu / 16Gi on 5,000 nodes (pure planning on a ledger). */
    @Benchmark
    public Object planGangOf1000On5000Nodes(PlanState s) {
        GangPlanner.Requirement req = new GangPlanner.Requirement(1_000, Map.of(), 0, Map.of());
        return s.planner.plan(s.ledger.nodes(), s.members, req);
    }

    /**
     * The same 5,000 nodes labelled into 5 zones × 10 blocks × 100 racks (2 blocks per zone, 10 racks per block, 50 nodes
     * per rack), levels zone > block > rack > hostname.
     */
    @State(Scope.Benchmark)
    public static class TopologyPlanState {
        static final TopologyLevels LEVELS = TopologyLevels.of(List.of("topology.kubernetes.io/zone", "example.com/block",
                "example.com/rack", "kubernetes.io/hostname"));
        /** The level the gang requires: block (fits one of 10 blocks) or rack (fits no rack: the refusal path). */
        @Param({"example.com/block", "example.com/rack"})
        String level;
        Ledger ledger;
        List<GangPlanner.Member> members;
        GangPlanner planner = new GangPlanner(ScoringPolicy.BINPACK, LEVELS);
        GangPlanner.Topology topology;

        @Setup(Level.Trial)
        public void setUp() {
            ledger = ClusterModel.ledger(5_000, 20, 1, n -> {
                int i = Integer.parseInt(n.name().substring("node-".length()));
                int rack = i / 50;
                int block = rack / 10;
                int zone = block / 2;
                return n.withLabels(Map.of("topology.kubernetes.io/zone", "z" + zone, "example.com/block", "b" + block,
                        "example.com/rack", "r" + rack, "kubernetes.io/hostname", n.name()));
            });
            members = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                members.add(new GangPlanner.Member("m" + i, "worker", ClusterModel.podRequest(4_000, 16_384)));
            }
            topology = new GangPlanner.Topology(TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, level), Set.of());
        }
    }

    /** Plan 1,000 members of 4 cpu / 16Gi on 5,000 labelled nodes, all inside one domain of the required level. */
    @Benchmark
    public Object planGangOf1000On5000NodesRequiredLevel(TopologyPlanState s) {
        GangPlanner.Requirement req = new GangPlanner.Requirement(1_000, Map.of(), 0, Map.of());
        return s.planner.plan(s.ledger.nodes(), s.members, req, Map.of(), s.topology);
    }

    @State(Scope.Benchmark)
    public static class MemberState {
        GangScheduler scheduler;
        List<String> names;
        List<Pod> members = new ArrayList<>();
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            scheduler = ClusterModel.scheduler(SchedulerConfig.DEFAULT);
            names = NodeList.of(ClusterModel.populate(scheduler, 5_000, 20, 3)); // with their ids, as the decoder hands them over
            GangKey key = new GangKey("bench", "big");
            scheduler.upsertQueue(QueueSpec.open("default", null));
            scheduler.upsertPodGroup(PodGroupSpec.of(key, 1_000, "default"));
            for (int i = 0; i < 1_000; i++) {
                Pod m = new Pod(new PodId("member-" + i, "bench", "member-" + i), "1", ClusterModel.podRequest(4_000, 16_384),
                        key, "", 0, null, PodPhase.PENDING);
                scheduler.upsertPod(m);
                members.add(m);
            }
            scheduler.filter(members.getFirst(), names); // the first member's filter reserves the whole gang (not measured)
        }
    }

    /**
     * Filter one member of a reserved 1,000-member gang over 5,000 nodes: slot nodes pass, the member is steered to
     * one (members taken in turn, so earmarks move).
     */
    @Benchmark
    public FilterResult filterGangMemberOf1000On5000Nodes(MemberState s) {
        Pod m = s.members.get(s.next++ % s.members.size());
        return s.scheduler.filter(m, s.names);
    }

    /**
     * Prioritize one member of a reserved 1,000-member gang over all 5,000 nodes (kube-scheduler skips prioritize when
     * the member's filter passes one node; a gRPC client or a profile without node picking asks): slot nodes 10, the
     * others by the scoring policy.
     */
    @Benchmark
    public int[] prioritizeGangMemberOf1000On5000Nodes(MemberState s) {
        Pod m = s.members.get(s.next++ % s.members.size());
        return s.scheduler.prioritize(m, s.names);
    }

    @State(Scope.Benchmark)
    public static class FilterState {
        @Param({"500", "5000"})
        int nodes;
        GangScheduler scheduler;
        List<String> names;
        Pod pod;

        @Setup(Level.Trial)
        public void setUp() {
            scheduler = ClusterModel.scheduler(SchedulerConfig.DEFAULT);
            names = NodeList.of(ClusterModel.populate(scheduler, nodes, 20, 2)); // with their ids, as the decoder hands them over
            pod = new Pod(new PodId("single-uid", "bench", "single"), "7", ClusterModel.podRequest(1_000, 2_048), null, "", 0, null, PodPhase.PENDING);
            scheduler.upsertPod(pod); // the informer shows a pod before kube-scheduler asks about it (the verbs act on no other)
        }
    }

    /** Filter one single pod over all nodes (fit + score every node; the decision kept for prioritize). */
    @Benchmark
    public FilterResult filterSinglePod(FilterState s) {
        return s.scheduler.filter(s.pod, s.names);
    }

    /** Filter followed by the prioritize that reuses the kept decision. */
    @Benchmark
    public Object filterAndPrioritizeSinglePod(FilterState s) {
        FilterResult f = s.scheduler.filter(s.pod, s.names);
        return s.scheduler.prioritize(s.pod, f.feasible());
    }

    /**
     * The admission pass the extender runs every tick (200 ms), with {@code gangs} gangs of 8 × 100 cpu waiting in
     * three queues on 5,000 nodes of 32–96 cpu (no member fits any node, so every pass finds the same line): fair shares,
     * the line order, the gang next in line and the reasons — the cost that grows with the number of waiting gangs.
     * {@code preemption}: with an evictor, as the chart runs it, the tick also orders the gangs that may take room back
     * and tries the first few (none finds room here: no member fits any node).
     */
    @State(Scope.Benchmark)
    public static class LineState {
        @Param({"1000", "10000"})
        int gangs;
        @Param({"false", "true"})
        boolean preemption;
        GangScheduler scheduler;

        @Setup(Level.Trial)
        public void setUp() {
            SchedulerConfig config = SchedulerConfig.DEFAULT.withSetAsideAfter(java.time.Duration.ZERO);
            scheduler = !preemption ? ClusterModel.scheduler(config)
                    : new GangScheduler(config, (pod, node) -> CompletableFuture.completedFuture(null),
                            (pod, why) -> CompletableFuture.completedFuture(new EvictionOutcome.Evicted()),
                            DisruptionBudgets.NONE,
                            new AllocationJournal(1 << 16, java.time.InstantSource.system()), System::nanoTime);
            ClusterModel.populate(scheduler, 5_000, 20, 1);
            for (String q : List.of("research", "production", "batch")) {
                scheduler.upsertQueue(new QueueSpec(q, dev.muster.core.model.QueueState.OPEN, q.length(), null, null, null, true));
            }
            for (int g = 0; g < gangs; g++) {
                GangKey key = new GangKey("bench", "wait-" + g);
                String queue = List.of("research", "production", "batch").get(g % 3);
                scheduler.upsertPodGroup(PodGroupSpec.of(key, 8, queue));
                for (int i = 0; i < 8; i++) {
                    scheduler.upsertPod(new Pod(new PodId("w" + g + "-" + i, "bench", "w" + g + "-" + i), "1",
                            ClusterModel.podRequest(100_000, 16_384), key, "", g % 2, null, PodPhase.PENDING));
                }
            }
            scheduler.expireDue();
        }
    }

    /** One full admission pass (the tick) over the waiting gangs. */
    @Benchmark
    public Object admissionPass(LineState s) {
        s.scheduler.expireDue();
        return s.scheduler;
    }
}
