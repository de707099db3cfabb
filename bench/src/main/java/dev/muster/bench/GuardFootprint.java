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
 * preferences, so each passes on every node; then the same pods filtered again without, each passed on one node. Used
 * heap after full GCs before the filters and after each round: the differences are what the verbs remember.
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
            passed += s.filter(p, candidates, true).feasible().size(); // soft preferences: every node that fits passes
        }
        double seconds = (System.nanoTime() - t) / 1e9;
        long everyNode = LedgerFootprint.usedAfterGc();
        for (Pod p : pending) {
            s.filter(p, candidates, false); // the same pods filtered again, each passed on its one picked node
        }
        long oneNode = LedgerFootprint.usedAfterGc();
        System.out.printf("nodes=%d pending-pods=%d; remembered, passed on all %d nodes each: %.1f MB (%d bytes/pod); passed on one node each:"
                        + " %.1f MB (%d bytes/pod); %d filters in %.1f s%n",
                nodes, pods, passed / pods, (everyNode - before) / 1e6, (everyNode - before) / pods,
                (oneNode - before) / 1e6, (oneNode - before) / pods, pods, seconds);
        java.lang.ref.Reference.reachabilityFence(s); // the scheduler and its pods stay live through every measurement
        java.lang.ref.Reference.reachabilityFence(pending);
        if (passed != (long) pods * nodes) {
            throw new AssertionError("not every pod passed on every node: " + passed);
        }
    }
}
