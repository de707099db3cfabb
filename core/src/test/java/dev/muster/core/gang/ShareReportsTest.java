package dev.muster.core.gang;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent.QueueShareChanged;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShareReportsTest {
    private static final Resources CLUSTER = Resources.ofPod(100_000, 0); // 100 cpu: 1 % is 1 cpu

    private static FairShare.Share share(String q, long fairMillis, long borrowedMillis) {
        return new FairShare.Share(q, Resources.ofPod(fairMillis, 0), Resources.ZERO, Resources.ofPod(borrowedMillis, 0), 0, false);
    }

    @Test
    void aShareIsReportedFirstThenOnlyWhenItMovesByOnePercentOfTheCluster() {
        ShareReports reports = new ShareReports();
        assertThat(reports.toReport(Map.of("a", share("a", 50_000, 0)), CLUSTER)).extracting(QueueShareChanged::queue).containsExactly("a");
        // 999m is under 1 % of 100 cpu: nothing to say
        assertThat(reports.toReport(Map.of("a", share("a", 50_999, 0)), CLUSTER)).isEmpty();
        // measured from what was last reported, not from the last refresh: 50 → 51 cpu is 1 %
        assertThat(reports.toReport(Map.of("a", share("a", 51_000, 0)), CLUSTER)).singleElement()
                .satisfies(c -> assertThat(c.fairShare().get(0)).isEqualTo(51_000));
        // the borrowed amount counts too
        assertThat(reports.toReport(Map.of("a", share("a", 51_000, 1_000)), CLUSTER)).hasSize(1);
    }

    @Test
    void aQueueThatLeftIsForgottenAndReportedAgainWhenItComesBack() {
        ShareReports reports = new ShareReports();
        reports.toReport(Map.of("a", share("a", 50_000, 0), "b", share("b", 50_000, 0)), CLUSTER);
        assertThat(reports.toReport(Map.of("a", share("a", 50_000, 0)), CLUSTER)).isEmpty();
        assertThat(reports.toReport(Map.of("a", share("a", 50_000, 0), "b", share("b", 50_000, 0)), CLUSTER))
                .extracting(QueueShareChanged::queue).containsExactly("b");
    }

    @Test
    void onAnEmptyClusterAnyChangeOfAUnitMoves() {
        assertThat(ShareReports.moved(Resources.ZERO, Resources.ofPod(1, 0), Resources.ZERO)).isTrue();
        assertThat(ShareReports.moved(Resources.ofPod(1, 0), Resources.ofPod(1, 0), Resources.ZERO)).isFalse();
    }
}
