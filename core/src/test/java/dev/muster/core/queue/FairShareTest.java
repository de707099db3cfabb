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

    /** One row of "a queue's share is capped by what it can use": research's asks and capability, and the shares. */
    record Usable(String rule, Resources researchAsks, Resources researchCapability, long researchCpu, long researchGpu, long batchCpu) {
        @Override
        public String toString() {
            return rule;
        }
    }

    static Stream<Usable> usableRows() {
        return Stream.of(
                new Usable("a capability that allows all it asks caps nothing", res("1200", "0", "nvidia.com/gpu", "100"),
                        res("3000", "0", "nvidia.com/gpu", "128"), 1200, 100, 800),
                new Usable("a capability that allows half the GPUs asked allows half the cpu asked", res("1200", "0", "nvidia.com/gpu", "200"),
                        res("3000", "0", "nvidia.com/gpu", "100"), 600, 100, 1400),
                new Usable("the tightest resource decides", res("1200", "0", "nvidia.com/gpu", "200"),
                        res("300", "0", "nvidia.com/gpu", "100"), 300, 50, 1700));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("usableRows")
    void aQueuesShareOfEveryResourceIsCappedByWhatItCanUse(Usable u) {
        Resources cluster = res("2000", "0", "nvidia.com/gpu", "160");
        Map<String, FairShare.Share> shares = FairShare.compute(cluster, List.of(
                new FairShare.Demand(q("research", 3, u.researchCapability(), null, null), Resources.ZERO, u.researchAsks()),
                new FairShare.Demand(q("batch", 1), Resources.ZERO, res("2000", "0"))));
        assertThat(shares.get("research").fairShare().cpuMillis()).isEqualTo(u.researchCpu() * 1000);
        assertThat(shares.get("research").fairShare().get("nvidia.com/gpu")).isEqualTo(u.researchGpu());
        assertThat(shares.get("batch").fairShare().cpuMillis()).isEqualTo(u.batchCpu() * 1000);
    }

    @org.junit.jupiter.api.Test
    void aQueueWantsMoreOnlyWhenItHasWaitingWorkItsCapabilityAllows() {
        Map<String, FairShare.Share> shares = FairShare.compute(res("100", "0"), List.of(
                d(q("asks", 1), 10, 30),
                new FairShare.Demand(q("at-capability", 1), res("10", "0"), res("30", "0"), false),
                d(q("idle", 1), 10, 10)));
        assertThat(shares.get("asks").wantsMore()).isTrue();
        assertThat(shares.get("at-capability").wantsMore()).isFalse();
        assertThat(shares.get("idle").wantsMore()).isFalse();
    }

    @org.junit.jupiter.api.Test
    void aQueuesStandingIsToldOnTheResourceItsRatioIsDecidedByWithBothNumbersOfThatResource() {
        // holds 30% of the cpu against a 20% share (ratio 1.5) and 41% of the memory against a 46% share (0.89): it is
        // over its share on cpu, so both numbers are cpu's — never 41% of memory beside 46% of another resource
        Resources total = res("100", "100Gi");
        assertThat(FairShare.Share.against(res("30", "41Gi"), res("20", "46Gi"), total)).isEqualTo("cpu (holds 30%, share 20%)");
        assertThat(FairShare.Share.against(Resources.ZERO, res("20", "46Gi"), total)).isEqualTo("memory (holds 0%, share 46%)");
    }
}
