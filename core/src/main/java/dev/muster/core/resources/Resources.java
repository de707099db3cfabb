package dev.muster.core.resources;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An immutable vector of resource amounts in exact integer units: cpu in millicores, memory and
 * ephemeral-storage in bytes, pods as a count, extended resources (e.g. {@code nvidia.com/gpu}) in
 * their integer units.
 *
 * <p>Arithmetic never throws on shortage: {@link #minus} may produce negative amounts, and
 * callers ask {@link #fitsIn} or {@link #shortageAgainst} instead of asserting. Sums saturate at
 * {@link Long#MAX_VALUE} rather than overflow.
 */
public final class Resources {
    public static final Resources ZERO = new Resources(new long[0]);

    private final long[] amounts; // index = ResourceNames index; trailing entries may be absent (= 0)

    private Resources(long[] amounts) {
        this.amounts = amounts;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Convenience for tests and code: cpu millicores, memory bytes, and a count of 1 pod. */
    public static Resources ofPod(long cpuMillis, long memoryBytes) {
        return builder().set(ResourceNames.CPU, cpuMillis).set(ResourceNames.MEMORY, memoryBytes).set(ResourceNames.PODS, 1).build();
    }

    public static Resources of(Map<String, Long> amounts) {
        Builder b = builder();
        amounts.forEach(b::set);
        return b.build();
    }

    public long get(int index) {
        return index < amounts.length ? amounts[index] : 0;
    }

    public long get(String name) {
        int index = ResourceNames.lookup(name);
        return index < 0 ? 0 : get(index);
    }

    public long cpuMillis() {
        return get(ResourceNames.CPU_INDEX);
    }

    public long memoryBytes() {
        return get(ResourceNames.MEMORY_INDEX);
    }

    public long pods() {
        return get(ResourceNames.PODS_INDEX);
    }

    /** Number of slots in the internal vector (an upper bound on the highest non-zero index + 1). */
    public int width() {
        return amounts.length;
    }

    public boolean isZero() {
        for (long a : amounts) {
            if (a != 0) {
                return false;
            }
        }
        return true;
    }

    public boolean anyNegative() {
        for (long a : amounts) {
            if (a < 0) {
                return true;
            }
        }
        return false;
    }

    public Resources plus(Resources other) {
        if (other.isZero()) {
            return this;
        }
        long[] r = Arrays.copyOf(amounts, Math.max(amounts.length, other.amounts.length));
        for (int i = 0; i < other.amounts.length; i++) {
            r[i] = saturatingAdd(r[i], other.amounts[i]);
        }
        return new Resources(r);
    }

    public Resources minus(Resources other) {
        if (other.isZero()) {
            return this;
        }
        long[] r = Arrays.copyOf(amounts, Math.max(amounts.length, other.amounts.length));
        for (int i = 0; i < other.amounts.length; i++) {
            r[i] = saturatingAdd(r[i], -other.amounts[i]);
        }
        return new Resources(r);
    }

    public Resources times(long factor) {
        long[] r = new long[amounts.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = saturatingMultiply(amounts[i], factor);
        }
        return new Resources(r);
    }

    /** A copy with one amount replaced. */
    public Resources with(int index, long amount) {
        long[] r = Arrays.copyOf(amounts, Math.max(amounts.length, index + 1));
        r[index] = amount;
        return new Resources(r);
    }

    /** Element-wise maximum (kube-scheduler's {@code maxResourceList}). */
    public Resources max(Resources other) {
        long[] r = Arrays.copyOf(amounts, Math.max(amounts.length, other.amounts.length));
        for (int i = 0; i < other.amounts.length; i++) {
            r[i] = Math.max(r[i], other.amounts[i]);
        }
        return new Resources(r);
    }

    /** Replace each amount that {@code other} names (non-zero there) with other's amount. */
    public Resources overriddenBy(Resources other) {
        long[] r = Arrays.copyOf(amounts, Math.max(amounts.length, other.amounts.length));
        for (int i = 0; i < other.amounts.length; i++) {
            if (other.amounts[i] != 0) {
                r[i] = other.amounts[i];
            }
        }
        return new Resources(r);
    }

    /** True when every amount of this is at most the same amount of {@code available}. */
    public boolean fitsIn(Resources available) {
        long[] a = amounts;
        long[] b = available.amounts;
        for (int i = 0; i < a.length; i++) {
            long have = i < b.length ? b[i] : 0;
            if (a[i] > have) {
                return false;
            }
        }
        return true;
    }

    /** How many copies of this fit in {@code available} (Long.MAX_VALUE for a zero request). */
    public long copiesFittingIn(Resources available) {
        long copies = Long.MAX_VALUE;
        long[] b = available.amounts;
        for (int i = 0; i < amounts.length; i++) {
            long need = amounts[i];
            if (need <= 0) {
                continue;
            }
            long have = i < b.length ? b[i] : 0;
            if (have < need) {
                return 0;
            }
            copies = Math.min(copies, have / need);
        }
        return copies;
    }

    /** What {@code available} lacks to hold this request: positive amounts only; ZERO when it fits. */
    public Resources shortageAgainst(Resources available) {
        long[] r = null;
        for (int i = 0; i < amounts.length; i++) {
            long have = available.get(i);
            if (amounts[i] > have) {
                if (r == null) {
                    r = new long[amounts.length];
                }
                r[i] = amounts[i] - have;
            }
        }
        return r == null ? ZERO : new Resources(r);
    }

    /** Amounts clamped at zero from below. */
    public Resources nonNegative() {
        if (!anyNegative()) {
            return this;
        }
        long[] r = amounts.clone();
        for (int i = 0; i < r.length; i++) {
            r[i] = Math.max(0, r[i]);
        }
        return new Resources(r);
    }

    /** Name → amount for every non-zero amount, in index order. */
    public Map<String, Long> asMap() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < amounts.length; i++) {
            if (amounts[i] != 0) {
                m.put(ResourceNames.nameOf(i), amounts[i]);
            }
        }
        return m;
    }

    /** Human-readable, e.g. {@code 4 cpu, 16Gi memory, 1 nvidia.com/gpu}. Zero amounts are omitted. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < amounts.length; i++) {
            if (amounts[i] == 0 || i == ResourceNames.PODS_INDEX) {
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append(", ");
            }
            sb.append(Quantities.format(ResourceNames.nameOf(i), amounts[i])).append(' ').append(ResourceNames.nameOf(i));
        }
        if (sb.isEmpty()) {
            return pods() != 0 ? pods() + " pods" : "nothing";
        }
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Resources other)) {
            return false;
        }
        int n = Math.max(amounts.length, other.amounts.length);
        for (int i = 0; i < n; i++) {
            if (get(i) != other.get(i)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        int last = amounts.length - 1;
        while (last >= 0 && amounts[last] == 0) {
            last--;
        }
        int h = 1;
        for (int i = 0; i <= last; i++) {
            h = 31 * h + Long.hashCode(amounts[i]);
        }
        return h;
    }

    static long saturatingAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    static long saturatingMultiply(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
            return lo;
        }
        return (a < 0) == (b < 0) ? Long.MAX_VALUE : Long.MIN_VALUE;
    }

    /** Mutable builder; not thread-safe. */
    public static final class Builder {
        private long[] amounts = new long[ResourceNames.count()];

        public Builder set(String name, long amount) {
            return set(ResourceNames.indexOf(name), amount);
        }

        public Builder set(int index, long amount) {
            ensure(index);
            amounts[index] = amount;
            return this;
        }

        public Builder add(String name, long amount) {
            return add(ResourceNames.indexOf(name), amount);
        }

        public Builder add(int index, long amount) {
            ensure(index);
            amounts[index] = saturatingAdd(amounts[index], amount);
            return this;
        }

        /** Adds every amount of {@code other}, saturating like {@link Resources#plus}, without a vector per sum. */
        public Builder add(Resources other) {
            if (other.amounts.length > amounts.length) {
                amounts = Arrays.copyOf(amounts, other.amounts.length);
            }
            for (int i = 0; i < other.amounts.length; i++) {
                amounts[i] = saturatingAdd(amounts[i], other.amounts[i]);
            }
            return this;
        }

        private void ensure(int index) {
            if (index >= amounts.length) {
                amounts = Arrays.copyOf(amounts, index + 1);
            }
        }

        public Resources build() {
            int last = amounts.length - 1;
            while (last >= 0 && amounts[last] == 0) {
                last--;
            }
            return last < 0 ? ZERO : new Resources(Arrays.copyOf(amounts, last + 1));
        }
    }
}
