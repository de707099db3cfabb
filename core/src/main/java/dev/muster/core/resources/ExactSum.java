package dev.muster.core.resources;

import java.util.Arrays;

/**
 * A running sum of {@link Resources} that is exact whatever is added and taken away: each amount is kept in 128 bits
 * (a carry word beside the {@code long}), and read back saturated at {@link Long#MAX_VALUE} / {@link Long#MIN_VALUE}.
 * {@link Resources#plus} saturates, so a sum that reached the limit (two pods asking {@code 5E} of memory) and then
 * lost one of them would read wrong with it; here taking away exactly what was added always gives the sum back. Its
 * owner's lock confines it (not thread-safe).
 */
public final class ExactSum {
    private long[] low = new long[0];
    private long[] carry = new long[0]; // value = carry × 2^64 + low (low read as signed)
    private Resources value = Resources.ZERO;

    /** The sum, saturated to a {@code long} per resource. */
    public Resources value() {
        return value;
    }

    public void add(Resources r) {
        apply(r, 1);
    }

    public void subtract(Resources r) {
        apply(r, -1);
    }

    private void apply(Resources r, int sign) {
        if (r.width() > low.length) {
            low = Arrays.copyOf(low, r.width());
            carry = Arrays.copyOf(carry, r.width());
        }
        boolean saturated = false;
        for (int i = 0; i < r.width(); i++) {
            long x = r.get(i);
            if (x == 0) {
                continue;
            }
            long a = low[i];
            long s;
            if (sign > 0) {
                s = a + x;
                if (((a ^ s) & (x ^ s)) < 0) { // wrapped past ±2^63
                    carry[i] += x > 0 ? 1 : -1;
                }
            } else {
                s = a - x;
                if (((a ^ x) & (a ^ s)) < 0) {
                    carry[i] += x > 0 ? -1 : 1;
                }
            }
            low[i] = s;
            saturated |= carry[i] != 0;
        }
        Resources.Builder b = Resources.builder();
        for (int i = 0; i < low.length; i++) {
            if (carry[i] != 0 || low[i] != 0) {
                b.set(i, carry[i] > 0 ? Long.MAX_VALUE : carry[i] < 0 ? Long.MIN_VALUE : low[i]);
            }
        }
        value = b.build();
    }
}
