package dev.muster.demo.cli;

import dev.muster.core.resources.ResourceNames;
import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * One unit for amounts of one resource that are read side by side (a queue's allocation and its capability), so that
 * {@code 1.5Gi of 64Gi} is not written {@code 1536Mi of 64Gi}: cpu in cores ({@code 12.5}, exact, as cpu quantities
 * are millicores), byte resources (memory, ephemeral-storage, hugepages-*) in the largest binary unit up to {@code Gi}
 * that the biggest of the amounts reaches, with at most two decimals; any other resource as a plain count. {@code Gi} is
 * the largest unit, as in the scheduler's own messages ({@code Quantities.format}: a gang's reason, the dry run), so
 * that every command writes 12Ti as {@code 12288Gi}. Immutable.
 */
record SharedUnits(String suffix, long unit, int decimals) {
    private static final String[] BINARY = {"Ki", "Mi", "Gi"};

    /** The unit for {@code resource} in which all {@code amounts} are written. */
    static SharedUnits of(String resource, long... amounts) {
        if (ResourceNames.CPU.equals(resource)) {
            return new SharedUnits("", 1000, 3);
        }
        if (!bytes(resource)) {
            return new SharedUnits("", 1, 0);
        }
        long biggest = 0;
        for (long a : amounts) {
            biggest = Math.max(biggest, Math.abs(a));
        }
        SharedUnits u = new SharedUnits("", 1, 0);
        for (int i = 0; i < BINARY.length && biggest >= 1L << (10 * (i + 1)); i++) {
            u = new SharedUnits(BINARY[i], 1L << (10 * (i + 1)), 2);
        }
        return u;
    }

    /** {@code amount} in this unit, without trailing zeros: {@code 1.5Gi}, {@code 64Gi}, {@code 0.25}; never "0" for a non-zero amount. */
    String format(long amount) {
        BigDecimal value = BigDecimal.valueOf(amount).divide(BigDecimal.valueOf(unit), decimals, RoundingMode.HALF_UP);
        if (amount != 0 && value.signum() == 0) {
            return "<" + BigDecimal.ONE.movePointLeft(decimals).toPlainString() + suffix;
        }
        return value.stripTrailingZeros().toPlainString() + suffix;
    }

    private static boolean bytes(String resource) {
        return ResourceNames.MEMORY.equals(resource) || ResourceNames.EPHEMERAL_STORAGE.equals(resource) || resource.startsWith("hugepages-");
    }
}
