package dev.muster.core.gang;

import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent.QueueShareChanged;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Which queues' fair shares the allocation stream must carry: those that moved by more than 1 % of the cluster (of any
 * resource) since they were last reported, so the stream carries shares without an event per queue per tick. Remembers
 * what it last reported; confined to the core's lock, like the {@link AdmissionPass} that owns it.
 */
final class ShareReports {
    private final Map<String, QueueShareChanged> reported = new HashMap<>();

    /** The shares to report now (recorded as reported); queues no longer in {@code shares} are forgotten. */
    List<QueueShareChanged> toReport(Map<String, FairShare.Share> shares, Resources clusterTotal) {
        List<QueueShareChanged> out = new ArrayList<>();
        shares.forEach((q, s) -> {
            QueueShareChanged last = reported.get(q);
            if (last == null || moved(last.fairShare(), s.fairShare(), clusterTotal) || moved(last.borrowed(), s.borrowed(), clusterTotal)) {
                QueueShareChanged now = new QueueShareChanged(q, s.fairShare(), s.borrowed());
                reported.put(q, now);
                out.add(now);
            }
        });
        reported.keySet().retainAll(shares.keySet());
        return out;
    }

    /** Whether any resource moved by at least 1 % of the cluster's (at least one unit). */
    static boolean moved(Resources before, Resources after, Resources clusterTotal) {
        int width = Math.max(Math.max(before.width(), after.width()), clusterTotal.width());
        for (int i = 0; i < width; i++) {
            long step = Math.max(1, clusterTotal.get(i) / 100);
            if (Math.abs(before.get(i) - after.get(i)) >= step) {
                return true;
            }
        }
        return false;
    }
}
