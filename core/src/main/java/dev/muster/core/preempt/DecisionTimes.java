package dev.muster.core.preempt;

import java.util.ArrayList;
import java.util.List;

/** How long decisions took under the core's lock, by {@link PreemptionStats#BUCKETS_MILLIS}. Confined to the core's lock. */
final class DecisionTimes {
    private final long[] buckets = new long[PreemptionStats.BUCKETS_MILLIS.size() + 1];
    private long decisions;
    private long nanos;

    void timed(long took) {
        decisions++;
        nanos += took;
        double millis = took / 1e6;
        int i = 0;
        while (i < PreemptionStats.BUCKETS_MILLIS.size() && millis > PreemptionStats.BUCKETS_MILLIS.get(i)) {
            i++;
        }
        buckets[i]++;
    }

    List<Long> cumulative() {
        List<Long> out = new ArrayList<>(buckets.length);
        long sum = 0;
        for (long b : buckets) {
            sum += b;
            out.add(sum);
        }
        return out;
    }

    long decisions() {
        return decisions;
    }

    long nanos() {
        return nanos;
    }
}
