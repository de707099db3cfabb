package dev.muster.demo.fairness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.demo.report.ShareGaps;
import dev.muster.demo.scenario.Scenario;
import dev.muster.demo.scenario.ScenarioReader;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The share goal on the contended scenario, played on the real scheduling core in simulated time: while every
 * queue has waiting work its capability allows, each queue holds its fair share within ±10 points over any 5 simulated
 * minutes. Deterministic: the clock is simulated and the run single-threaded.
 */
class FairShareSimulationTest {
    private static Scenario contended;
    private static FairShareSimulation.Run run;

    @BeforeAll
    static void play() {
        contended = ScenarioReader.builtIn("/scenarios/contended.yaml");
        run = FairShareSimulation.run(contended);
    }

    @Test
    void everythingRunsAndTheBooksBalance() {
        assertThat(run.invariantProblems()).isEmpty();
        assertThat(run.gangsStarted()).isEqualTo(run.gangs()).isEqualTo(499);
        assertThat(run.podsStarted()).isEqualTo(run.pods()).isEqualTo(300);
    }

    @Test
    void everyQueueWantsMoreForMostOfTheArrivals() {
        long counted = ShareGaps.counted(FairShareReport.samples(run));
        // arrivals last ~15 simulated minutes, sampled every 15 s: the condition holds for at least 10 of them
        assertThat(counted).isGreaterThanOrEqualTo(40);
    }

    @Test
    void whileEveryQueueWantsMoreEachHoldsItsWeightedShareWithinTenPointsOverAnyFiveMinutes() {
        Map<String, ShareGaps.QueueGap> gaps = FairShareReport.gaps(run);
        assertThat(gaps).containsOnlyKeys("research", "production", "batch");
        gaps.values().forEach(g -> {
            assertThat(g.worstGap()).as(g.queue() + ": a 5-minute window of the condition exists").isGreaterThanOrEqualTo(0);
            assertThat(g.worstGap()).as(g.queue() + ": worst 5-minute gap, held vs fair share").isLessThanOrEqualTo(10);
        });
        // no capability binds, so the fair shares follow the weights 3:2:1 (50/33/17% of the cluster's cpu)
        assertThat(gaps.get("research").fairMean()).isBetween(45.0, 52.0);
        assertThat(gaps.get("production").fairMean()).isBetween(30.0, 36.0);
        assertThat(gaps.get("batch").fairMean()).isBetween(14.0, 19.0);
        assertThat(gaps.get("research").heldMean()).isGreaterThan(gaps.get("production").heldMean());
        assertThat(gaps.get("production").heldMean()).isGreaterThan(gaps.get("batch").heldMean());
    }

    @Test
    void theReportNamesEachQueueAndItsGap() {
        String text = FairShareReport.render(contended, run);
        assertThat(text).contains("gangs started 499/499", "research", "production", "batch", "points").doesNotContain("Invariants broken");
    }

    @Test
    void sameScenarioSameRun() {
        Scenario small = ScenarioReader.parse("""
                name: small
                seed: 3
                speed: 20
                nodes: [{group: n, count: 8, cpu: 32, memory: 128Gi}]
                queues: [{name: a, weight: 2}, {name: b, weight: 1}]
                gangs:
                  - {name: x, queue: a, count: 30, size: 2-6, cpu: 4-8, memory: 8Gi, duration: 2m-4m, rate: 6/m}
                  - {name: y, queue: b, count: 30, size: 1-4, cpu: 4-8, memory: 8Gi, duration: 2m-4m, rate: 6/m}
                """, "small.yaml");
        assertThat(FairShareSimulation.run(small)).isEqualTo(FairShareSimulation.run(small));
    }
}
