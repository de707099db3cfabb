package dev.muster.core.scoring;

import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.resources.Resources;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ScoringPolicyTest {
    static Stream<Arguments> cases() {
        Resources cap = res("10", "10Gi");
        return Stream.of(
                Arguments.of("binpack: empty node scores low", ScoringPolicy.BINPACK, cap, Resources.ZERO, res("1", "1Gi"), 1),
                Arguments.of("binpack: nearly full node scores high", ScoringPolicy.BINPACK, cap, res("8", "8Gi"), res("1", "1Gi"), 8),
                Arguments.of("spread: empty node scores high", ScoringPolicy.SPREAD, cap, Resources.ZERO, res("1", "1Gi"), 8),
                Arguments.of("spread: nearly full node scores low", ScoringPolicy.SPREAD, cap, res("8", "8Gi"), res("1", "1Gi"), 1),
                Arguments.of("overfull clamps at the top", ScoringPolicy.BINPACK, cap, res("20", "20Gi"), res("1", "1Gi"), 9));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void scores(String name, ScoringPolicy p, Resources cap, Resources inUse, Resources request, int expected) {
        assertThat(ScoringPolicy.toExtenderScore(p.score(cap, inUse, request))).isEqualTo(expected);
    }

    @Test
    void highestIsTheFirstOfTheBestScores() {
        assertThat(ScoringPolicy.highest(new int[0])).isEqualTo(-1);
        assertThat(ScoringPolicy.highest(new int[] {0})).isZero();
        assertThat(ScoringPolicy.highest(new int[] {3, 7, 1, 7})).isEqualTo(1);
        assertThat(ScoringPolicy.highest(new int[] {0, 0, 10})).isEqualTo(2);
    }
}
