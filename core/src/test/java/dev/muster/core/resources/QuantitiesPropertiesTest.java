package dev.muster.core.resources;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The whole-number path {@link Quantities} takes for the common quantities answers exactly what the decimal parse
 * answers, value or error, for every resource kind: near the limits of {@code long}, with every suffix, and for texts
 * that only look simple (signs, points, exponents, spaces, unknown suffixes).
 */
class QuantitiesPropertiesTest {

    @Provide
    Arbitrary<String> quantities() {
        Arbitrary<String> sign = Arbitraries.of("", "", "", "+", "-");
        Arbitrary<String> digits = Arbitraries.strings().withChars("0123456789").ofMinLength(0).ofMaxLength(21);
        Arbitrary<String> fraction = Arbitraries.of("", "", "", ".", ".5", ".0001");
        Arbitrary<String> suffix = Arbitraries.of("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei",
                "i", "Qi", "K", "e3", "E2", "e", " ", "mi", "Kii");
        Arbitrary<String> padding = Arbitraries.of("", "", "", "", " ");
        return Combinators.combine(padding, sign, digits, fraction, suffix).as((p, s, d, f, x) -> p + s + d + f + x);
    }

    @Property(tries = 5000)
    void theWholeNumberPathAnswersWhatTheDecimalParseAnswers(@ForAll("quantities") String text) {
        for (int extra : new int[] {0, 3}) {
            Object expected = outcome(() -> Quantities.exact(text, extra));
            Object actual = outcome(() -> extra == 3 ? Quantities.parseMillis(text) : Quantities.parseUnits(text));
            assertThat(actual).as("\"%s\" scaled by 10^%d", text, extra).isEqualTo(expected);
        }
    }

    @Property(tries = 2000)
    void largeWholeNumbersWithEverySuffixAgree(@ForAll("large") long n, @ForAll("suffixes") String suffix) {
        String text = n + suffix;
        assertThat(outcome(() -> Quantities.parseUnits(text))).as(text).isEqualTo(outcome(() -> Quantities.exact(text, 0)));
        assertThat(outcome(() -> Quantities.parseMillis(text))).as(text).isEqualTo(outcome(() -> Quantities.exact(text, 3)));
    }

    @Provide
    Arbitrary<Long> large() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 999_999_999_999_999_999L),
                Arbitraries.longs().between(0, 1L << 20), Arbitraries.of(0L, 1L, 8L, 9_223_372L, 9_223_372_036L, 9_223_372_036_854L));
    }

    @Provide
    Arbitrary<String> suffixes() {
        return Arbitraries.of("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei");
    }

    private static Object outcome(java.util.function.LongSupplier parse) {
        try {
            return parse.getAsLong();
        } catch (InvalidQuantityException e) {
            return "error: " + e.getMessage();
        }
    }
}
