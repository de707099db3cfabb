package dev.muster.demo.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SharedUnitsTest {
    private static final long KI = 1L << 10;
    private static final long MI = 1L << 20;
    private static final long GI = 1L << 30;
    private static final long TI = 1L << 40;

    @ParameterizedTest(name = "{0}: {1} beside {2} is {3} beside {4}")
    @CsvSource({
            "cpu, 12500, 16000, 12.5, 16",
            "cpu, 250, 16000, 0.25, 16",
            "cpu, 7, 1000, 0.007, 1",
            "nvidia.com/gpu, 3, 8, 3, 8",
            "pods, 110, 250, 110, 250",
    })
    void countsAndCores(String resource, long a, long b, String first, String second) {
        SharedUnits u = SharedUnits.of(resource, a, b);
        assertThat(u.format(a)).isEqualTo(first);
        assertThat(u.format(b)).isEqualTo(second);
    }

    @ParameterizedTest(name = "{0}: {1} beside {2} is {3} beside {4}")
    @CsvSource({
            "memory, 1536, Mi, 64, Gi, 1.5Gi, 64Gi",
            "memory, 100, Mi, 64, Gi, 0.1Gi, 64Gi",
            "memory, 48, Gi, 3, Ti, 48Gi, 3072Gi",
            "memory, 512, Ki, 1, Mi, 0.5Mi, 1Mi",
            "ephemeral-storage, 20, Gi, 100, Gi, 20Gi, 100Gi",
            "hugepages-2Mi, 512, Mi, 1, Gi, 0.5Gi, 1Gi",
    })
    void bytesTakeTheUnitOfTheBiggest(String resource, long a, String aUnit, long b, String bUnit, String first, String second) {
        long x = a * unit(aUnit);
        long y = b * unit(bUnit);
        SharedUnits u = SharedUnits.of(resource, x, y);
        assertThat(u.format(x)).isEqualTo(first);
        assertThat(u.format(y)).isEqualTo(second);
    }

    @Test
    void aNonZeroAmountTooSmallForTwoDecimalsIsNotWrittenAsZero() {
        SharedUnits u = SharedUnits.of("memory", 4 * KI, TI);

        assertThat(u.format(4 * KI)).isEqualTo("<0.01Gi");
        assertThat(u.format(0)).isEqualTo("0Gi");
    }

    @ParameterizedTest(name = "memory {0} bytes")
    @org.junit.jupiter.params.provider.ValueSource(longs = {12L << 40, 16L << 30, 3L << 29, 64L << 20, 5L << 50})
    void theUnitsAreTheSchedulersOwn(long amount) {
        assertThat(SharedUnits.of("memory", amount).format(amount)).as("what queues and gangs print, what a gang's reason says")
                .isEqualTo(dev.muster.core.resources.Quantities.format("memory", amount));
    }

    private static long unit(String suffix) {
        return switch (suffix) {
            case "Ki" -> KI;
            case "Mi" -> MI;
            case "Gi" -> GI;
            case "Ti" -> TI;
            default -> throw new IllegalArgumentException(suffix);
        };
    }
}
