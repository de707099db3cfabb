package dev.muster.demo.report;

import java.util.Arrays;

/** Nearest-rank percentiles. Stateless. */
public final class Percentiles {
    private Percentiles() {}

    /** The {@code p}-th percentile (0 < p <= 100) of {@code values}; -1 when there are none. */
    public static long of(long[] values, double p) {
        if (values.length == 0) {
            return -1;
        }
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return ofSorted(sorted, p);
    }

    static long ofSorted(long[] sorted, double p) {
        if (sorted.length == 0) {
            return -1;
        }
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }
}
