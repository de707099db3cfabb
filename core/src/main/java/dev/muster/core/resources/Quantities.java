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
        long fast = wholeNumber(text, extraDecimalExponent);
        return fast != NOT_WHOLE ? fast : exact(text, extraDecimalExponent);
    }

    /** What {@link #wholeNumber} answers when the text is not of its simple kind. */
    private static final long NOT_WHOLE = Long.MIN_VALUE;
    private static final long[] POWERS_OF_TEN = {1L, 10L, 100L, 1_000L, 10_000L, 100_000L, 1_000_000L, 10_000_000L, 100_000_000L,
            1_000_000_000L, 10_000_000_000L, 100_000_000_000L, 1_000_000_000_000L, 10_000_000_000_000L, 100_000_000_000_000L,
            1_000_000_000_000_000L, 10_000_000_000_000_000L, 100_000_000_000_000_000L, 1_000_000_000_000_000_000L};

    /**
     * The quantities pods and nodes carry almost always ({@code 100m}, {@code 128Mi}, {@code 4}, {@code 2G}): up to 18
     * digits with no sign, point or exponent, and a suffix of at most two letters, computed in {@code long} arithmetic
     * with exactly {@link #exact}'s result; {@link #NOT_WHOLE} for anything else, or where the result would not fit,
     * which {@link #exact} then parses (and names when malformed). Allocates nothing: every pod event's requests are
     * parsed, and a restart parses every pod of the cluster before it is ready.
     */
    private static long wholeNumber(String s, int extraDecimalExponent) {
        if (s == null) {
            return NOT_WHOLE;
        }
        int end = s.length();
        int i = 0;
        long n = 0;
        while (i < end && i < 18) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                break;
            }
            n = n * 10 + (c - '0');
            i++;
        }
        if (i == 0 || end - i > 2) {
            return NOT_WHOLE;
        }
        Suffix suffix = suffix(s, i);
        if (suffix == null) {
            return NOT_WHOLE;
        }
        int shift = suffix.binaryShift(); // multiply by 2^shift
        int exponent = extraDecimalExponent + suffix.decimalExponent(); // then by 10^exponent
        if (shift > 0) {
            if (n != 0 && Long.numberOfLeadingZeros(n) <= shift) {
                return NOT_WHOLE; // 2^63 or more: saturates in exact
            }
            n <<= shift;
        }
        if (exponent >= 0) {
            if (exponent >= POWERS_OF_TEN.length) {
                return n == 0 ? 0 : NOT_WHOLE;
            }
            long scaled = n * POWERS_OF_TEN[exponent];
            return Math.multiplyHigh(n, POWERS_OF_TEN[exponent]) == 0 && scaled >= 0 ? scaled : NOT_WHOLE;
        }
        long divisor = POWERS_OF_TEN[-exponent]; // -exponent <= 9
        return n / divisor + (n % divisor == 0 ? 0 : 1); // rounded up
    }

    /** Any quantity, in exact decimal arithmetic. */
    static long exact(String text, int extraDecimalExponent) {
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
        Suffix suffix = suffix(s, numberEnd);
        BigDecimal multiplier = suffix == null ? BigDecimal.ONE : BigDecimal.valueOf(1L << suffix.binaryShift());
        int decimalExponent = suffix == null ? exponent(s, s.substring(numberEnd)) : suffix.decimalExponent();
        BigDecimal value = number.multiply(multiplier).scaleByPowerOfTen(decimalExponent + extraDecimalExponent);
        BigInteger rounded = value.setScale(0, RoundingMode.CEILING).toBigInteger();
        if (rounded.bitLength() > 63) {
            return rounded.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return rounded.longValue();
    }

    /** What a quantity's suffix stands for: 2^binaryShift × 10^decimalExponent. */
    private record Suffix(int binaryShift, int decimalExponent) {}

    private static final Suffix NONE = new Suffix(0, 0);
    private static final Suffix[] DECIMAL = new Suffix[128]; // by letter: n u m k M G T P E
    private static final Suffix[] BINARY = new Suffix[128]; // by first letter: Ki Mi Gi Ti Pi Ei

    static {
        String decimal = "numkMGTPE";
        int[] exponents = {-9, -6, -3, 3, 6, 9, 12, 15, 18};
        for (int k = 0; k < decimal.length(); k++) {
            DECIMAL[decimal.charAt(k)] = new Suffix(0, exponents[k]);
        }
        String binary = "KMGTPE";
        for (int k = 0; k < binary.length(); k++) {
            BINARY[binary.charAt(k)] = new Suffix(10 * (k + 1), 0);
        }
    }

    /**
     * The suffix {@code s} ends with from {@code from} on (none, n u m k M G T P E, Ki Mi Gi Ti Pi Ei), or null when that
     * is no such suffix (an exponent like {@code e3}, or malformed). The one table both parses read; allocates nothing.
     */
    private static Suffix suffix(String s, int from) {
        int length = s.length() - from;
        if (length == 0) {
            return NONE;
        }
        char c = s.charAt(from);
        if (c >= 128) {
            return null;
        }
        if (length == 1) {
            return DECIMAL[c];
        }
        return length == 2 && s.charAt(from + 1) == 'i' ? BINARY[c] : null;
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
