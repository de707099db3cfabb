package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.demo.driver.ProgressLine;
import dev.muster.demo.report.GangOutcome;
import dev.muster.demo.report.HtmlReport;
import dev.muster.demo.report.RunResult;
import dev.muster.demo.report.StreamRecorder;
import dev.muster.demo.report.TextReport;
import dev.muster.demo.scenario.ScenarioReader;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The built-in {@code preemption} scenario end to end: production borrows the whole cluster, research's gangs reclaim
 * their half, then a priority-1000 production gang evicts a lower-priority gang of its own queue. Every eviction goes
 * through the embedded cluster's Eviction API and the victims' pods are recreated and run later.
 */
class PreemptionScenarioTest {
    private static RunResult result;

    @BeforeAll
    static void run() throws Exception {
        result = new DemoRun(ScenarioReader.builtIn("/scenarios/preemption.yaml"), ProgressLine.NONE).run();
    }

    @Test
    void researchReclaimsItsShareFromProductionAndTheUrgentGangPreemptsLowerPriority() {
        List<StreamRecorder.Preemption> decisions = result.stream().preemptions();
        List<StreamRecorder.Preemption> reclaims = decisions.stream().filter(d -> d.kind() == PreemptionKind.RECLAIM).toList();
        assertThat(reclaims).as("research's gangs reclaim").isNotEmpty().allSatisfy(d -> {
            assertThat(d.queue()).isEqualTo("research");
            assertThat(d.victims()).extracting(Victim::queue).containsOnly("production");
        });
        assertThat(decisions).filteredOn(d -> d.kind() == PreemptionKind.PRIORITY).singleElement().satisfies(d -> {
            assertThat(d.preemptor()).isEqualTo(new GangKey("data", "urgent-1"));
            assertThat(d.victims()).allSatisfy(v -> {
                assertThat(v.queue()).isEqualTo("production");
                assertThat(v.priority()).isLessThan(1000);
            });
        });
        assertThat(result.evictions()).as("every victim evicted through the cluster").hasSize(decisions.stream().mapToInt(d -> d.victims().size()).sum());
        assertThat(result.evictions()).allSatisfy(e -> assertThat(e.replacement()).isNotNull());
        for (StreamRecorder.Preemption d : decisions) {
            GangOutcome preemptor = result.gangs().stream().filter(g -> g.key().equals(d.preemptor())).findFirst().orElseThrow();
            assertThat(preemptor.startedAt()).as(d.preemptor() + " started after its decision").isGreaterThanOrEqualTo(d.at());
        }
    }

    @Test
    void everyInvariantHoldsAndTheVictimsRecreatedPodsRunToo() {
        assertThat(result.finished()).as(result.endReason()).isTrue();
        assertThat(result.violations()).isEmpty();
        assertThat(result.gangs(GangOutcome.Kind.PARTIAL)).isZero();
        assertThat(result.gangs()).allSatisfy(g -> assertThat(g.kind()).as(g.key().toString()).isEqualTo(GangOutcome.Kind.WHOLE));
        assertThat(result.podsAtEnd().get("succeeded")).isEqualTo(result.podsPlanned());
        assertThat(result.driver().binds()).as("each replacement is bound once more").isEqualTo(result.podsPlanned() + result.evictions().size());
    }

    @Test
    void theReportSaysWhoWasEvictedForWhomWhenAndTheSharesBeforeAndAfter() {
        String text = TextReport.render(result);
        assertThat(text).containsPattern("Taking capacity back +\\d+ decisions \\(1 priority, \\d+ reclaim\\), \\d+ pods evicted")
                .containsPattern("\\n  \\d:\\d\\d:\\d\\d reclaim: ml/train-\\d \\(research, priority 0\\) evicted 8 pods on \\d nodes: data/etl-\\d "
                        + "\\(production, priority 0, 8 pods\\); it started at \\d:\\d\\d:\\d\\d\\n")
                .containsPattern("\\n  \\d:\\d\\d:\\d\\d priority: data/urgent-1 \\(production, priority 1000\\) evicted")
                .containsPattern("share of the cluster before → after: research cpu \\(holds \\d+%, share \\d+%\\) → cpu \\(holds \\d+%, share \\d+%\\); production")
                .doesNotContain("Muster does not evict");
        assertThat(HtmlReport.render(result)).contains("<h2>Taking capacity back</h2>");
    }
}
