package dev.muster.core.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class QuantitiesTest {

    static Stream<Arguments> valid() {
        return Stream.of(
                Arguments.of("millicores", "cpu", "100m", 100L),
                Arguments.of("whole cores", "cpu", "4", 4000L),
                Arguments.of("fractional cores", "cpu", "1.5", 1500L),
                Arguments.of("sub-millicore rounds up", "cpu", "0.0001", 1L),
                Arguments.of("exponent cores", "cpu", "2e3", 2_000_000L),
                Arguments.of("binary memory", "memory", "1.5Gi", 1_610_612_736L),
                Arguments.of("Mi", "memory", "64Mi", 67_108_864L),
                Arguments.of("decimal memory", "memory", "1G", 1_000_000_000L),
                Arguments.of("k", "memory", "128k", 128_000L),
                Arguments.of("plain bytes", "memory", "1024", 1024L),
                Arguments.of("milli bytes round up", "memory", "1500m", 2L),
                Arguments.of("gpu count", "nvidia.com/gpu", "1", 1L),
                Arguments.of("exponent E", "memory", "1E3", 1000L),
                Arguments.of("leading plus", "cpu", "+1", 1000L),
                Arguments.of("trailing dot", "cpu", "1.", 1000L),
                Arguments.of("huge saturates", "memory", "9999999Ei", Long.MAX_VALUE),
                Arguments.of("nano cpu rounds up", "cpu", "1n", 1L));
    }

    @ParameterizedTest(name = "{0}: {1}={2}")
    @MethodSource("valid")
    void parses(String name, String resource, String text, long expected) {
        assertThat(Quantities.parse(resource, text)).isEqualTo(expected);
    }

    static Stream<Arguments> invalid() {
        return Stream.of(
                Arguments.of("empty", "", "empty"),
                Arguments.of("letters", "abc", "does not start with a number"),
                Arguments.of("unknown suffix", "12Qi", "unknown suffix"),
                Arguments.of("double dot", "1.2.3", "unknown suffix"),
                Arguments.of("lone sign", "-", "does not start with a number"),
                Arguments.of("space inside", "1 Gi", "unknown suffix"),
                Arguments.of("exponent too big", "1e999", "exponent"),
                Arguments.of("too long", "1".repeat(80), "too long"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void rejectsWithReadableMessage(String name, String text, String messagePart) {
        assertThatThrownBy(() -> Quantities.parse("memory", text))
                .isInstanceOf(InvalidQuantityException.class)
                .hasMessageContaining(messagePart);
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @MethodSource("formats")
    void formatsForPeople(String resource, long amount, String expected) {
        assertThat(Quantities.format(resource, amount)).isEqualTo(expected);
    }

    static Stream<Arguments> formats() {
        return Stream.of(
                Arguments.of("cpu", 4000L, "4"),
                Arguments.of("cpu", 500L, "500m"),
                Arguments.of("memory", 17_179_869_184L, "16Gi"),
                Arguments.of("memory", 1000L, "1000"),
                // by magnitude, so amounts told side by side share a unit: never "4992Gi … 12Ti" in one sentence
                Arguments.of("memory", 12L << 40, "12288Gi"),
                Arguments.of("memory", 4992L << 30, "4992Gi"),
                Arguments.of("memory", 1536L << 20, "1.5Gi"),
                Arguments.of("memory", 512L << 20, "512Mi"),
                Arguments.of("memory", Long.MAX_VALUE, "9223372036854775807"), // no unit holds it exactly: bytes
                Arguments.of("nvidia.com/gpu", 8L, "8"));
    }
}
