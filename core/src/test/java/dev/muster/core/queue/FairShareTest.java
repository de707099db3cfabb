package dev.muster.core.queue;

import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Fair shares of cpu among queues: one row per rule (cluster of 100 cpu unless said otherwise). */
class FairShareTest {
    private static QueueSpec q(String name, int weight) {
        return new QueueSpec(name, QueueState.OPEN, weight, null, null, null, true);
    }

    private static QueueSpec q(String name, int weight, Resources capability, Resources deserved, Resources guarantee) {
        return new QueueSpec(name, QueueState.OPEN, weight, capability, deserved, guarantee, true);
    }

    private static FairShare.Demand d(QueueSpec spec, int heldCpu, int asksCpu) {
        return new FairShare.Demand(spec, res(String.valueOf(heldCpu), "0"), res(String.valueOf(asksCpu), "0"));
    }

    static Stream<Arguments> rows() {
        return Stream.of(
                Arguments.of("weights 3:1, both want everything", List.of(d(q("a", 3), 0, 100), d(q("b", 1), 0, 100)), Map.of("a", 75, "b", 25)),
                Arguments.of("a queue that asks for less leaves the rest to the others", List.of(d(q("a", 3), 0, 10), d(q("b", 1), 0, 100)), Map.of("a", 10, "b", 90)),
                Arguments.of("an idle queue's share goes to the queues that want more", List.of(d(q("a", 3), 0, 0), d(q("b", 1), 0, 100), d(q("c", 1), 0, 100)), Map.of("a", 0, "b", 50, "c", 50)),
                Arguments.of("capability caps the weighted share", List.of(d(q("a", 3, res("20", "0"), null, null), 0, 100), d(q("b", 1), 0, 100)), Map.of("a", 20, "b", 80)),
                Arguments.of("guarantee is set aside even when idle", List.of(d(q("a", 1, null, null, res("30", "0")), 0, 0), d(q("b", 1), 0, 100)), Map.of("a", 30, "b", 70)),
                Arguments.of("guarantee plus a weighted share of the rest", List.of(d(q("a", 1, null, null, res("20", "0")), 0, 100), d(q("b", 1), 0, 100)), Map.of("a", 60, "b", 40)),
                Arguments.of("deserved overrides the weighted share", List.of(d(q("a", 9, null, res("10", "0"), null), 0, 100), d(q("b", 1), 0, 100)), Map.of("a", 10, "b", 90)),
                Arguments.of("a closed queue has no share", List.of(d(new QueueSpec("a", QueueState.CLOSED, 3, null, null, null, true), 50, 100), d(q("b", 1), 0, 100)), Map.of("a", 0, "b", 100)),
                Arguments.of("equal weights split evenly, held does not matter", List.of(d(q("a", 1), 90, 100), d(q("b", 1), 0, 100)), Map.of("a", 50, "b", 50)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void cpuFairShares(String rule, List<FairShare.Demand> queues, Map<String, Integer> expectedCpu) {
        Map<String, FairShare.Share> shares = FairShare.compute(res("100", "0"), queues);
        expectedCpu.forEach((queue, cpu) -> assertThat(shares.get(queue).fairShare().cpuMillis()).as(rule + ": " + queue).isEqualTo(cpu * 1000L));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rows")
    void sharesNeverExceedTheCluster(String rule, List<FairShare.Demand> queues, Map<String, Integer> ignored) {
        long sum = FairShare.compute(res("100", "0"), queues).values().stream().mapToLong(s -> s.fairShare().cpuMillis()).sum();
        assertThat(sum).as(rule).isLessThanOrEqualTo(100_000L);
    }

    @org.junit.jupiter.api.Test
    void ratioAndBorrowedSayWhoIsOwedAndWhoBorrows() {
        Map<String, FairShare.Share> shares = FairShare.compute(res("100", "0"),
                List.of(d(q("a", 1), 80, 100), d(q("b", 1), 10, 100), d(q("c", 1), 0, 0)));
        assertThat(shares.get("a").borrowed().cpuMillis()).isEqualTo(30_000L);
        assertThat(shares.get("a").ratio()).isEqualTo(1.6);
        assertThat(shares.get("b").ratio()).isEqualTo(0.2);
        assertThat(shares.get("b").borrowed().isZero()).isTrue();
        assertThat(shares.get("c").ratio()).isZero();
        assertThat(FairShare.Share.percentOf(shares.get("a").held(), res("100", "0"))).isEqualTo(80);
    }
}
