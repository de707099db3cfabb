package dev.muster.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.Refusal;
import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the report must say less rather than mislead: few samples, unnamed reasons, a machine behind its speed, units. */
class ReportEdgesTest {
    private static final long SECOND = 1_000_000_000L;
    private static final Resources TOTAL = Resources.builder().set("cpu", 1000).build();

    private static List<ShareGaps.At> samples(int n) {
        List<ShareGaps.At> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new ShareGaps.At(i * 15 * SECOND, Map.of(
                    "a", new FairShare.Share("a", Resources.builder().set("cpu", 500).build(), Resources.builder().set("cpu", 400).build(),
                            Resources.ZERO, 0.8, true),
                    "b", new FairShare.Share("b", Resources.builder().set("cpu", 500).build(), Resources.builder().set("cpu", 600).build(),
                            Resources.builder().set("cpu", 100).build(), 1.2, true))));
        }
        return out;
    }

    @Test
    void noMeansOnFewerSamplesThanAComparisonNeedsButTheReportSaysSo() {
        StringBuilder few = new StringBuilder();
        FairnessReport.sharesTable(few, samples(FairnessReport.MIN_SAMPLES - 1), TOTAL);
        assertThat(few.toString()).contains("every queue did in only 19 of 19 samples, fewer than the 20 a comparison of all queues needs")
                .contains("  a                 19   too few samples to compare (fewer than 20)")
                .doesNotContain("%");

        StringBuilder enough = new StringBuilder();
        FairnessReport.sharesTable(enough, samples(FairnessReport.MIN_SAMPLES), TOTAL);
        assertThat(enough.toString()).contains("(resource that decides its place in line; 20 of 20 samples)")
                .containsPattern("\\n  a +20 +40% +50% +0 ").containsPattern("\\n  b +20 +60% +50% +20 ");
    }

    @Test
    void everyRefusalCauseHasANamedReasonAndNoneIsOther() {
        for (Refusal.Cause c : Refusal.Cause.values()) {
            assertThat(ReasonCategory.of(c).label()).as(c.name()).isNotBlank().isNotEqualToIgnoringCase("other");
        }
        assertThat(ReasonCategory.of(Refusal.Cause.IN_LINE).label()).isEqualTo("waiting its turn behind a queue further below its fair share");
        assertThat(ReasonCategory.of(Refusal.Cause.BACKING_OFF).label()).isEqualTo("backing off after a failed try");
    }

    @Test
    void aMachineBehindItsSpeedEarnsAWarningWithASpeedToTry() {
        long[] quick = new long[100];
        Arrays.fill(quick, 50_000_000L); // 50 ms real to a first try
        assertThat(SpeedCheck.warning(20, quick, new long[] {SECOND})).as("1 s simulated at 20x: kept up").isEmpty();

        long[] slow = new long[100];
        Arrays.fill(slow, 3_350_000_000L); // 3.35 s real, as at 40x on two busy cores
        assertThat(SpeedCheck.warning(40, slow, new long[] {SECOND})).hasValue("WARNING: at 40x this machine fell behind the simulated clock "
                + "(first scheduling try p50 3350 ms real = 2m14s sim; simulated-time tasks late p99 1.0s): waits in this report are stretched by "
                + "as much. Try --speed 2.");
        assertThat(SpeedCheck.warning(20, quick, new long[] {45 * SECOND})).as("tasks late by 45 s simulated").isPresent();
    }

    @Test
    void memoryIsWrittenInGiAsTheCliWritesIt() {
        assertThat(Fmt.amount("memory", 12L << 40)).isEqualTo("12288Gi");
        assertThat(Fmt.amount("memory", 48L << 30)).isEqualTo("48Gi");
    }
}
