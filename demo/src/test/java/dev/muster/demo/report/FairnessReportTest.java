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
}
