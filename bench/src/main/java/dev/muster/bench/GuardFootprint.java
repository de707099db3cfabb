package dev.muster.bench;

import dev.muster.core.ledger.NodeList;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * Live heap of what the verbs remember between a pod's filter and its bind (the nodes each pending pod's last filter
 * passed), in the worst case: {@code pods} pending pods, each filtered over all {@code nodes} nodes with soft
 * preferences, so each passes on every node. Used heap after full GCs with the pods shown but not filtered, then after
 * every filter.
 */
public final class GuardFootprint {
    public static void main(String[] args) {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        int pods = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        GangScheduler s = ClusterModel.scheduler(SchedulerConfig.DEFAULT);
        List<String> names = ClusterModel.populate(s, nodes, 0, 3);
        NodeList candidates = NodeList.of(names); // as the request decoder hands them
        List<Pod> pending = new ArrayList<>(pods);
        for (int i = 0; i < pods; i++) {
            String uid = "pending-" + i;
            Pod p = new Pod(new PodId(uid, "bench", uid), "1", ClusterModel.podRequest(1, 1), null, "", 0, null, PodPhase.PENDING);
            s.upsertPod(p);
            pending.add(p);
        }
        long before = LedgerFootprint.usedAfterGc();
        long t = System.nanoTime();
        long passed = 0;
        for (Pod p : pending) {
            passed += s.filter(p, candidates, true).feasible().size();
        }
        double seconds = (System.nanoTime() - t) / 1e9;
        long after = LedgerFootprint.usedAfterGc();
        System.out.printf("nodes=%d pending-pods=%d passed-per-pod=%d remembered=%.1f MB (%d bytes/pod); %d filters in %.1f s%n",
                nodes, pods, passed / pods, (after - before) / 1e6, (after - before) / pods, pods, seconds);
        if (passed != (long) pods * nodes) {
            throw new AssertionError("not every pod passed on every node: " + passed);
        }
    }
}
