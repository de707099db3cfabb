package dev.muster.server.stream;

import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationSnapshot;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The expected per-queue totals, folded by hand from the events the test appended (not with the core's
 * AllocationTotals, which is what the stream itself uses), as name → amount maps without zeros.
 * Not thread-safe.
 */
public final class IndependentFold {
    private final Map<String, Map<String, Long>> byQueue = new HashMap<>();

    public void apply(AllocationEvent event) {
        switch (event) {
            case AllocationEvent.PodAllocated a -> add(a.queue(), a.resources().asMap(), 1);
            case AllocationEvent.PodReleased r -> add(r.queue(), r.resources().asMap(), -1);
            case AllocationEvent.GangChanged ignored -> {}
            case AllocationEvent.QueueShareChanged ignored -> {}
            case AllocationEvent.PreemptionDecided ignored -> {}
        }
    }

    private void add(String queue, Map<String, Long> amounts, int sign) {
        Map<String, Long> q = byQueue.computeIfAbsent(queue, k -> new TreeMap<>());
        amounts.forEach((name, amount) -> {
            long v = q.getOrDefault(name, 0L) + sign * amount;
            if (v == 0) {
                q.remove(name);
            } else {
                q.put(name, v);
            }
        });
        if (q.isEmpty()) {
            byQueue.remove(queue);
        }
    }

    public Map<String, Map<String, Long>> totals() {
        Map<String, Map<String, Long>> copy = new TreeMap<>();
        byQueue.forEach((q, m) -> copy.put(q, new TreeMap<>(m)));
        return copy;
    }

    /** The same shape from a snapshot. */
    public static Map<String, Map<String, Long>> totalsOf(AllocationSnapshot snapshot) {
        Map<String, Map<String, Long>> out = new TreeMap<>();
        snapshot.allocatedByQueue().forEach((q, r) -> {
            if (!r.isZero()) {
                out.put(q, new TreeMap<>(r.asMap()));
            }
        });
        return out;
    }
}
