package dev.muster.bench;

import dev.muster.core.model.Node;
import dev.muster.core.scheduler.ClusterSink;
import dev.muster.core.scheduler.GangScheduler;
import java.util.HashMap;
import java.util.Map;
import dev.muster.core.scheduler.SchedulerConfig;

/**
 * Live heap of a ledger holding 5,000 nodes and 150,000 running pods: used heap after full GCs, before
 * and after building it (the scheduler's pod registry, ledger records and node entries all count).
 */
public final class LedgerFootprint {
    public static void main(String[] args) {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int podsPerNode = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        boolean labels = args.length > 2 && args[2].equals("labels");
        long before = usedAfterGc();
        GangScheduler s = ClusterModel.scheduler(SchedulerConfig.DEFAULT);
        ClusterModel.populate(labels ? labelled(s) : s, nodes, podsPerNode, 3);
        long after = usedAfterGc();
        System.out.printf("nodes=%d pods=%d%s live-heap-delta=%.1f MB (%d bytes/pod incl. node share)%n",
                nodes, nodes * podsPerNode, labels ? " labels=" + LABELS_PER_NODE + "/node" : "", (after - before) / 1e6,
                (after - before) / ((long) nodes * podsPerNode));
        if (s.stats().podsHoldingResources() != nodes * podsPerNode) {
            throw new AssertionError("ledger lost pods");
        }
    }

    static final int LABELS_PER_NODE = 16;

    /**
     * {@code s}, with every node given the labels a cloud node carries (16: hostname, os, arch, instance type, zone,
     * region, node pool, ... with their beta duplicates), each string a fresh copy as an informer decodes it.
     */
    private static ClusterSink labelled(GangScheduler s) {
        return new ClusterSink() {
            @Override public void upsertNode(Node node) {
                int i = Integer.parseInt(node.name().substring(node.name().indexOf('-') + 1));
                Map<String, String> l = new HashMap<>();
                put(l, "kubernetes.io/hostname", node.name());
                put(l, "kubernetes.io/os", "linux");
                put(l, "kubernetes.io/arch", "amd64");
                put(l, "beta.kubernetes.io/os", "linux");
                put(l, "beta.kubernetes.io/arch", "amd64");
                put(l, "node.kubernetes.io/instance-type", "m5." + (4 << (i % 3)) + "xlarge");
                put(l, "beta.kubernetes.io/instance-type", "m5." + (4 << (i % 3)) + "xlarge");
                put(l, "topology.kubernetes.io/region", "eu-west-1");
                put(l, "failure-domain.beta.kubernetes.io/region", "eu-west-1");
                put(l, "topology.kubernetes.io/zone", "eu-west-1" + (char) ('a' + i % 3));
                put(l, "failure-domain.beta.kubernetes.io/zone", "eu-west-1" + (char) ('a' + i % 3));
                put(l, "eks.amazonaws.com/nodegroup", "pool-" + (i % 8));
                put(l, "eks.amazonaws.com/capacityType", "ON_DEMAND");
                put(l, "k8s.io/cloud-provider-aws", "a1b2c3d4e5f6");
                put(l, "example.com/rack", "rack-" + (i / 40));
                put(l, "example.com/team", "ml");
                s.upsertNode(node.withLabels(l));
            }
            @Override public void deleteNode(String name) { s.deleteNode(name); }
            @Override public void upsertPod(dev.muster.core.model.Pod pod) { s.upsertPod(pod); }
            @Override public void deletePod(String uid) { s.deletePod(uid); }
            @Override public void upsertPodGroup(dev.muster.core.model.PodGroupSpec podGroup) { s.upsertPodGroup(podGroup); }
            @Override public void deletePodGroup(dev.muster.core.model.GangKey key) { s.deletePodGroup(key); }
            @Override public void upsertQueue(dev.muster.core.model.QueueSpec queue) { s.upsertQueue(queue); }
            @Override public void deleteQueue(String name) { s.deleteQueue(name); }
            @Override public void markSynced() { s.markSynced(); }
        };
    }

    private static void put(Map<String, String> labels, String key, String value) {
        labels.put(new String(key), new String(value)); // fresh copies, as decoded from the API server's answer
    }

    static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
