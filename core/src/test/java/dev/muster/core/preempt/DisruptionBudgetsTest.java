package dev.muster.core.preempt;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.PodId;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A decision's count of its victims ({@link DisruptionBudgets#tally}) answers about a unit together with those counted. */
class DisruptionBudgetsTest {
    private static PodId pod(String name) {
        return new PodId(name + "-uid", "default", name);
    }

    @Test
    void theDefaultTallyAsksAboutEveryPodCountedSoFarTogetherWithTheUnit() {
        // at most two pods named web-… may go together
        DisruptionBudgets twoWebs = pods -> pods.stream().filter(p -> p.name().startsWith("web-")).count() > 2 ? "default/web" : null;
        DisruptionBudgets.Tally tally = twoWebs.tally();
        assertThat(tally.blocking(List.of(pod("web-0"), pod("db-0")))).isNull();
        tally.count(List.of(pod("web-0"), pod("db-0")));
        assertThat(tally.blocking(List.of(pod("web-1"), pod("web-2")))).as("three webs with the one counted").isEqualTo("default/web");
        assertThat(tally.blocking(List.of(pod("web-1")))).as("asking counts nothing").isNull();
        tally.count(List.of(pod("web-1")));
        assertThat(tally.blocking(List.of(pod("web-2")))).isEqualTo("default/web");
        assertThat(tally.blocking(List.of(pod("db-1")))).isNull();
        assertThat(twoWebs.tally().blocking(List.of(pod("web-2")))).as("a new tally counts nothing").isNull();
    }

    @Test
    void withoutBudgetsEveryUnitMayGo() {
        DisruptionBudgets.Tally tally = DisruptionBudgets.NONE.tally();
        for (int i = 0; i < 3; i++) {
            assertThat(tally.blocking(List.of(pod("p" + i)))).isNull();
            tally.count(List.of(pod("p" + i)));
        }
        assertThat(DisruptionBudgets.NONE.blocking(List.of(pod("a"), pod("b")))).isNull();
    }
}
