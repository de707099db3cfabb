package dev.muster.bench;

import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;

/**
 * Live heap of a ledger holding 5,000 nodes and 150,000 running pods: used heap after full GCs, before
 * and after building it (the scheduler's pod registry, ledger records and node entries all count).
 */
public final class LedgerFootprint {
    public static void main(String[] args) {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int podsPerNode = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        long before = usedAfterGc();
        GangScheduler s = ClusterModel.scheduler(SchedulerConfig.DEFAULT);
        ClusterModel.populate(s, nodes, podsPerNode, 3);
        long after = usedAfterGc();
        System.out.printf("nodes=%d pods=%d live-heap-delta=%.1f MB (%d bytes/pod incl. node share)%n",
                nodes, nodes * podsPerNode, (after - before) / 1e6, (after - before) / ((long) nodes * podsPerNode));
        if (s.stats().podsHoldingResources() != nodes * podsPerNode) {
            throw new AssertionError("ledger lost pods");
        }
    }

    static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 4; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
