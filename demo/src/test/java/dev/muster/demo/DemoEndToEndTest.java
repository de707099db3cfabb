package dev.muster.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.resources.Resources;
import dev.muster.demo.driver.ProgressLine;
import dev.muster.demo.report.Checkpoint;
import dev.muster.demo.report.GangOutcome;
import dev.muster.demo.report.HtmlReport;
import dev.muster.demo.report.RunResult;
import dev.muster.demo.report.TextReport;
import dev.muster.demo.scenario.ScenarioReader;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The demo end to end, as the one command runs it but in-process and on a small scenario: the real extender
 * over HTTP, the allocation stream over gRPC, the controller writing status into the embedded cluster.
 */
class DemoEndToEndTest {
    private static RunResult result;

    @BeforeAll
    static void run() throws Exception {
        result = new DemoRun(ScenarioReader.load(Path.of("src/test/resources/scenarios/e2e.yaml")), ProgressLine.NONE).run();
    }

    @Test
    void theRunFinishesWithEveryInvariantHolding() {
        assertThat(result.finished()).as(result.endReason()).isTrue();
        assertThat(result.violations()).isEmpty();
        assertThat(result.podsAtEnd().get("succeeded")).isEqualTo(result.podsPlanned());
    }

    @Test
    void noGangStartsPartiallyAndEveryAdmittedGangGetsAllItsPods() {
        assertThat(result.gangs()).hasSize(28);
        assertThat(result.gangs(GangOutcome.Kind.PARTIAL)).isZero();
        assertThat(result.gangs()).allSatisfy(g -> {
            assertThat(g.kind()).as(g.key().toString()).isEqualTo(GangOutcome.Kind.WHOLE);
            assertThat(g.everBound()).as(g.key() + " pods bound").isEqualTo(g.size());
        });
    }

    @Test
    void theQueueStatusTheControllerWroteEqualsTheSumOfBoundPodsWhileTheyRunAndAtTheEnd() {
        assertThat(result.checkpoints()).extracting(Checkpoint::label).containsExactly(DemoRun.MID_RUN, DemoRun.AT_THE_END);
        assertThat(result.checkpoints()).allMatch(Checkpoint::matched);
        Checkpoint busy = result.checkpoints().getFirst();
        assertThat(busy.truth().values()).as("something holds resources at the first checkpoint").anyMatch(r -> !r.isZero());
        busy.truth().forEach((queue, truth) -> assertThat(busy.written().getOrDefault(queue, Resources.ZERO)).as(queue).isEqualTo(truth));
        Checkpoint end = result.checkpoints().getLast();
        assertThat(end.truth().values()).allMatch(Resources::isZero);
    }

    @Test
    void noQueueEverHoldsMoreThanItsCapabilityAndTheTightQueueReachesIt() {
        assertThat(result.capabilityExceeded()).isEmpty();
        assertThat(result.stream().firstWaitReason()).isNotEmpty();
        assertThat(result.peakHeld("tight").cpuMillis()).isGreaterThan(0).isLessThanOrEqualTo(24_000);
        assertThat(result.queues()).allMatch(q -> q.statusWrites() > 0);
    }

    @Test
    void theBooksBalanceEverywhere() {
        assertThat(result.ledgerProblems()).isEmpty();
        assertThat(result.cluster().overcommittingBinds()).isZero();
        assertThat(result.cluster().admissionRejections()).isEmpty();
        assertThat(result.watchFailures()).isZero();
        assertThat(result.driver().binds()).isEqualTo(result.podsPlanned());
    }

    @Test
    void bothReportsRenderTheRun() {
        String text = TextReport.render(result);
        assertThat(text).containsPattern("started partially \\(must be 0\\) +0\n").containsPattern("Invariants +all hold").contains("team", "tight");
        String html = HtmlReport.render(result);
        assertThat(html).startsWith("<!DOCTYPE html>").contains("<svg", "all invariants hold").doesNotContain("<script", "src=", "href=", "@import")
                .endsWith("</body></html>\n");
        assertThat(html).as("share against fair share, per queue, as a chart per resource").contains("<h2>Share against fair share</h2>",
                "Share of the cluster's cpu (cores) per queue: held (solid) and fair share (dashed)",
                "Share of the cluster's GPUs (nvidia.com/gpu) per queue");
        assertThat(html).as("one resource per axis: utilisation per resource").contains("cpu (cores): requests of bound pods / allocatable",
                "memory (Gi): requests of bound pods / allocatable", "GPUs (nvidia.com/gpu): requests of bound pods / allocatable")
                .doesNotContain("Share of the cluster per queue:");
        assertThat(text).containsPattern("Keeping up with the speed-up +first scheduling try p50 ")
                .containsPattern("Taking capacity back +")
                .doesNotContainPattern("had to wait, first reason +[^\n]*\\bother\\b").doesNotContain("Ti mem");
        assertThat(text).as("the fair-share table is never empty").contains("Queue share of the cluster while")
                .doesNotContainPattern("\\n  \\w+ +0 +0% +0%");
    }
}
