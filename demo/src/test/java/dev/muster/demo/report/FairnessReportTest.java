package dev.muster.demo.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Which samples the fairness goal is measured on, and the worst 5-minute gap between held and fair share. */
class FairnessReportTest {
    private static final long SECOND = 1_000_000_000L;

    private static FairShare.Share share(String q, boolean wantsMore) {
        return new FairShare.Share(q, Resources.ZERO, Resources.ZERO, Resources.ZERO, 0, wantsMore);
    }

    record Window(String name, List<double[]> series, String worst) {
        @Override
        public String toString() {
            return name;
        }
    }

    /** A sample every 15 s from {@code from} (index among all samples) to {@code to}, held and fair in percent. */
    private static List<double[]> run(int from, int to, double held, double fair) {
        List<double[]> out = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            out.add(new double[] {i * 15 * SECOND, held, fair, i});
        }
        return out;
    }

    private static List<double[]> concat(List<double[]> a, List<double[]> b) {
        List<double[]> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    static Stream<Window> windows() {
        return Stream.of(
                new Window("five minutes 3 points below the share", run(0, 20, 40, 43), "3 points"),
                new Window("shorter than five minutes: no window", run(0, 10, 10, 80), "-"),
                new Window("a window does not span samples left out", concat(run(0, 10, 10, 80), run(30, 50, 50, 52)), "2 points"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("windows")
    void worstGapOverFiveMinutesOfConsecutiveSamples(Window w) {
        assertThat(FairnessReport.worstWindowGap(w.series())).isEqualTo(w.worst());
    }

    @org.junit.jupiter.api.Test
    void onlySamplesInWhichEveryQueueWantsMoreThanItHoldsCount() {
        assertThat(FairnessReport.allWantMore(new Sample(0, null, Map.of("a", share("a", true), "b", share("b", true))))).isTrue();
        assertThat(FairnessReport.allWantMore(new Sample(0, null, Map.of("a", share("a", true), "b", share("b", false))))).isFalse();
        assertThat(FairnessReport.allWantMore(new Sample(0, null, Map.of()))).isFalse();
    }

    @org.junit.jupiter.api.Test
    void heldAndFairShareAreComparedOnTheResourceThatDecidesThePlaceInLine() {
        Resources total = Resources.builder().set("cpu", 1000).set("memory", 1000).set("nvidia.com/gpu", 100).build();
        // bound by cpu: 30 of 33 held; the fair share of memory (40) is memory another queue does not ask for
        FairShare.Share cpuBound = new FairShare.Share("p", Resources.builder().set("cpu", 330).set("memory", 400).build(),
                Resources.builder().set("cpu", 300).set("memory", 200).build(), Resources.ZERO, 0.9, true);
        assertThat(ShareGaps.heldAndFair(cpuBound, total)).containsExactly(30, 33);
        // cpu and GPUs in one proportion (equal ratios): compared on GPUs, the larger share of the cluster
        FairShare.Share gpu = new FairShare.Share("r", Resources.builder().set("cpu", 80).set("nvidia.com/gpu", 80).build(),
                Resources.builder().set("cpu", 40).set("nvidia.com/gpu", 40).build(), Resources.ZERO, 0.5, true);
        assertThat(ShareGaps.heldAndFair(gpu, total)).containsExactly(40, 80);
        // holds nothing: its largest fair share
        FairShare.Share idle = new FairShare.Share("i", Resources.builder().set("cpu", 170).build(), Resources.ZERO, Resources.ZERO, 0, true);
        assertThat(ShareGaps.heldAndFair(idle, total)).containsExactly(0, 17);
    }

    @org.junit.jupiter.api.Test
    void whenTheQueuesNeverAllWantMoreEachIsComparedWhileItWantsMore() {
        Resources total = Resources.builder().set("cpu", 1000).build();
        Resources fair = Resources.builder().set("cpu", 500).build();
        // "a" waits for room in every sample; "b" sits at its capability (wants no more): never all at once
        List<ShareGaps.At> samples = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            samples.add(new ShareGaps.At(i * 15 * SECOND, Map.of(
                    "a", new FairShare.Share("a", fair, Resources.builder().set("cpu", 300).build(), Resources.ZERO, 0.6, true),
                    "b", new FairShare.Share("b", fair, Resources.builder().set("cpu", 500).build(), Resources.ZERO, 1, false))));
        }

        assertThat(ShareGaps.counted(samples)).isZero();
        assertThat(ShareGaps.of(samples, total).get("a").samples()).as("the goal's condition: no sample").isZero();
        Map<String, ShareGaps.QueueGap> each = ShareGaps.ofEachWanting(samples, total);
        assertThat(each.get("a").samples()).isEqualTo(4);
        assertThat(each.get("a").heldMean()).isEqualTo(30);
        assertThat(each.get("a").fairMean()).isEqualTo(50);
        assertThat(each.get("b").samples()).as("b never wanted more").isZero();
    }
}
