package dev.muster.bench;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.Resources;
import dev.muster.core.scheduler.ClusterSink;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/** Synthetic clusters for benchmarks: nodes of a few sizes, partly filled with running pods. */
public final class ClusterModel {
    private ClusterModel() {}

    public static Resources res(long cpuMillis, long memGi, long gpus) {
        Resources.Builder b = Resources.builder().set("cpu", cpuMillis).set("memory", memGi << 30).set("pods", 110);
        if (gpus > 0) {
            b.set("nvidia.com/gpu", gpus);
        }
        return b.build();
    }

    public static Resources podRequest(long cpuMillis, long memMi) {
        return Resources.builder().set("cpu", cpuMillis).set("memory", memMi << 20).set("pods", 1).build();
    }

    public static GangScheduler scheduler(SchedulerConfig config) {
        return new GangScheduler(config, (pod, node) -> CompletableFuture.completedFuture(null),
                new AllocationJournal(1 << 16, java.time.InstantSource.system()), System::nanoTime);
    }

    /** {@code nodes} nodes of 32–96 cpu, {@code podsPerNode} running pods of 500m/1Gi on each. */
    public static List<String> populate(GangScheduler s, int nodes, int podsPerNode, long seed) {
        List<String> names = populate((ClusterSink) s, nodes, podsPerNode, seed);
        s.markSynced();
        return names;
    }

    /** The same cluster, recorded straight into a ledger (for pure planning benchmarks). */
    public static Ledger ledger(int nodes, int podsPerNode, long seed) {
        return ledger(nodes, podsPerNode, seed, java.util.function.UnaryOperator.identity());
    }

    /** The same cluster, each node passed through {@code label} first (e.g. to give it topology labels). */
    public static Ledger ledger(int nodes, int podsPerNode, long seed, java.util.function.UnaryOperator<Node> label) {
        Ledger ledger = new Ledger();
        populate(new ClusterSink() {
            @Override public void upsertNode(Node node) { ledger.upsertNode(label.apply(node)); }
            @Override public void upsertPod(Pod pod) {
                ledger.putPod(new PodRecord(pod.id(), pod.nodeName(), pod.request(), null, "", false));
            }
            @Override public void deleteNode(String name) {}
            @Override public void deletePod(String uid) {}
            @Override public void upsertPodGroup(dev.muster.core.model.PodGroupSpec podGroup) {}
            @Override public void deletePodGroup(dev.muster.core.model.GangKey key) {}
            @Override public void upsertQueue(dev.muster.core.model.QueueSpec queue) {}
            @Override public void deleteQueue(String name) {}
            @Override public void markSynced() {}
        }, nodes, podsPerNode, seed);
        return ledger;
    }

    static List<String> populate(ClusterSink s, int nodes, int podsPerNode, long seed) {
        Random rnd = new Random(seed);
        List<String> names = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            String name = String.format("node-%05d", i);
            names.add(name);
            long cpu = (32 + 32L * rnd.nextInt(3)) * 1000;
            s.upsertNode(Node.of(name, res(cpu, cpu / 250, 0)));
            for (int p = 0; p < podsPerNode; p++) {
                String uid = name + "-pod-" + p;
                s.upsertPod(new Pod(new PodId(uid, "bench", uid), "1", podRequest(500, 1024), null, "", 0, name, PodPhase.RUNNING));
            }
        }
        return names;
    }
}
