package dev.muster.core.resources;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Kubernetes quantity strings ({@code 100m}, {@code 1.5Gi}, {@code 2e3}) to exact integers and back.
 *
 * <p>Semantics follow {@code k8s.io/apimachinery/pkg/api/resource}: {@code cpu} is returned in
 * millicores, everything else in base units; fractions round <em>up</em> (as {@code MilliValue()} and
 * {@code Value()} do). Values beyond {@code Long.MAX_VALUE} saturate. Stateless and thread-safe.
 */
public final class Quantities {
    private static final int MAX_LENGTH = 64;

    private Quantities() {}

    /** Parses {@code text} as an amount of {@code resource}; throws {@link InvalidQuantityException}. */
    public static long parse(String resource, String text) {
        return ResourceNames.CPU.equals(resource) ? parseMillis(text) : parseUnits(text);
    }

    /** The quantity in thousandths (cpu millicores), rounded up. */
    public static long parseMillis(String text) {
        return scaled(text, 3);
    }

    /** The quantity in whole units, rounded up. */
    public static long parseUnits(String text) {
        return scaled(text, 0);
    }

    private static long scaled(String text, int extraDecimalExponent) {
        if (text == null) {
            throw new InvalidQuantityException("quantity is missing");
        }
        String s = text.trim();
        if (s.isEmpty()) {
            throw new InvalidQuantityException("quantity is empty");
        }
        if (s.length() > MAX_LENGTH) {
            throw new InvalidQuantityException("quantity \"" + abbreviate(s) + "\" is too long");
        }
        int end = s.length();
        int numberEnd = 0;
        if (numberEnd < end && (s.charAt(numberEnd) == '+' || s.charAt(numberEnd) == '-')) {
            numberEnd++;
        }
        boolean dot = false;
        int digits = 0;
        while (numberEnd < end) {
            char c = s.charAt(numberEnd);
            if (c >= '0' && c <= '9') {
                digits++;
            } else if (c == '.' && !dot) {
                dot = true;
            } else {
                break;
            }
            numberEnd++;
        }
        if (digits == 0) {
            throw new InvalidQuantityException("quantity \"" + s + "\" does not start with a number");
        }
        String numeral = s.substring(s.charAt(0) == '+' ? 1 : 0, numberEnd);
        BigDecimal number = new BigDecimal(numeral.endsWith(".") ? numeral + "0" : numeral);
        String suffix = s.substring(numberEnd);
        BigDecimal multiplier;
        int decimalExponent;
        switch (suffix) {
            case "" -> { multiplier = BigDecimal.ONE; decimalExponent = 0; }
            case "n" -> { multiplier = BigDecimal.ONE; decimalExponent = -9; }
            case "u" -> { multiplier = BigDecimal.ONE; decimalExponent = -6; }
            case "m" -> { multiplier = BigDecimal.ONE; decimalExponent = -3; }
            case "k" -> { multiplier = BigDecimal.ONE; decimalExponent = 3; }
            case "M" -> { multiplier = BigDecimal.ONE; decimalExponent = 6; }
            case "G" -> { multiplier = BigDecimal.ONE; decimalExponent = 9; }
            case "T" -> { multiplier = BigDecimal.ONE; decimalExponent = 12; }
            case "P" -> { multiplier = BigDecimal.ONE; decimalExponent = 15; }
            case "E" -> { multiplier = BigDecimal.ONE; decimalExponent = 18; }
            case "Ki" -> { multiplier = BigDecimal.valueOf(1L << 10); decimalExponent = 0; }
            case "Mi" -> { multiplier = BigDecimal.valueOf(1L << 20); decimalExponent = 0; }
            case "Gi" -> { multiplier = BigDecimal.valueOf(1L << 30); decimalExponent = 0; }
            case "Ti" -> { multiplier = BigDecimal.valueOf(1L << 40); decimalExponent = 0; }
            case "Pi" -> { multiplier = BigDecimal.valueOf(1L << 50); decimalExponent = 0; }
            case "Ei" -> { multiplier = BigDecimal.valueOf(1L << 60); decimalExponent = 0; }
            default -> {
                multiplier = BigDecimal.ONE;
                decimalExponent = exponent(s, suffix);
            }
        }
        BigDecimal value = number.multiply(multiplier).scaleByPowerOfTen(decimalExponent + extraDecimalExponent);
        BigInteger rounded = value.setScale(0, RoundingMode.CEILING).toBigInteger();
        if (rounded.bitLength() > 63) {
            return rounded.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return rounded.longValue();
    }

    private static int exponent(String whole, String suffix) {
        if (suffix.length() >= 2 && (suffix.charAt(0) == 'e' || suffix.charAt(0) == 'E')) {
            String exp = suffix.substring(1);
            if (exp.matches("[+-]?[0-9]{1,3}")) {
                int e = Integer.parseInt(exp);
                if (Math.abs(e) <= 60) {
                    return e;
                }
                throw new InvalidQuantityException("quantity \"" + whole + "\" has an exponent out of range");
            }
        }
        throw new InvalidQuantityException("quantity \"" + abbreviate(whole) + "\" has an unknown suffix \"" + abbreviate(suffix)
                + "\" (expected one of n u m k M G T P E Ki Mi Gi Ti Pi Ei or an exponent like e3)");
    }

    private static String abbreviate(String s) {
        return s.length() <= 24 ? s : s.substring(0, 21) + "...";
    }

    /**
     * Formats an amount for people: {@code 4} / {@code 500m} for cpu; byte resources by magnitude, so amounts told side
     * by side read in one unit: {@code Gi} from 1Gi up ({@code 16Gi}, {@code 12288Gi}, {@code 1.5Gi}), {@code Mi} below,
     * then {@code Ki} and plain bytes — the next smaller unit when the amount needs more than two decimals in one, so
     * the text always parses back to the exact amount.
     */
    public static String format(String resource, long amount) {
        if (ResourceNames.CPU.equals(resource)) {
            return amount % 1000 == 0 ? Long.toString(amount / 1000) : amount + "m";
        }
        if (ResourceNames.MEMORY.equals(resource) || ResourceNames.EPHEMERAL_STORAGE.equals(resource)
                || resource.startsWith("hugepages-")) {
            String[] suffixes = {"Gi", "Mi", "Ki"};
            int[] shifts = {30, 20, 10};
            long magnitude = Math.abs(amount == Long.MIN_VALUE ? Long.MAX_VALUE : amount);
            for (int i = 0; i < suffixes.length; i++) {
                long unit = 1L << shifts[i];
                if (magnitude >= unit) {
                    BigDecimal v = BigDecimal.valueOf(amount).divide(BigDecimal.valueOf(unit)).stripTrailingZeros(); // exact: 2^k divides into a finite decimal
                    if (v.scale() <= 2) {
                        return v.toPlainString() + suffixes[i];
                    }
                }
            }
        }
        return Long.toString(amount);
    }

}
