package dev.muster.core.scheduler;

import static dev.muster.core.scheduler.PreemptionTest.arrives;
import static dev.muster.core.scheduler.PreemptionTest.running;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The band around fair share: reclaim fires only for a queue below {@code 1 - band} of its share, and only from queues
 * above {@code 1 + band} of theirs. Two equal queues share 16 cpu (a share of 8 each); a holds 10 (1.25 of its share),
 * b holds 6 (0.75) and waits for one more 2-cpu gang.
 */
class ReclaimBandTest {
    private final RecordingEvictor evictor = new RecordingEvictor();

    private SchedulerHarness layout(double band) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT.withReclaimBand(band)),
                evictor, DisruptionBudgets.NONE);
        for (int i = 0; i < 4; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.upsertQueue(queue("a"));
        h.scheduler.upsertQueue(queue("b"));
        h.scheduler.markSynced();
        String[] aNodes = {"n0", "n0", "n1", "n1", "n2"};
        for (int g = 0; g < aNodes.length; g++) {
            running(h, "a" + g, "a", 1, 0, aNodes[g]);
            h.clock.advance(Duration.ofSeconds(1));
        }
        String[] bNodes = {"n2", "n3", "n3"};
        for (int g = 0; g < bNodes.length; g++) {
            running(h, "b" + g, "b", 1, 0, bNodes[g]);
        }
        arrives(h, "b9", "b", 1, 0);
        return h;
    }

    @Test
    void queuesExactlyAtTheBandsEdgesDoNotTradeGangs() {
        SchedulerHarness h = layout(0.25);
        h.ticks(4, Duration.ofSeconds(6));
        assertThat(evictor.asked()).isEmpty();
        assertThat(h.whyCannotRun("b9")).contains("queue b is not below its fair share by more than the band (25% of it)");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void justInsideTheBandsEdgesReclaimTakesOneGangAndNoMore() {
        SchedulerHarness h = layout(0.24);
        h.ticks(4, Duration.ofSeconds(6));
        assertThat(evictor.asked()).as("one of a's gangs (a keeps its share, 8 cpu)").hasSize(1).allMatch(name -> name.startsWith("a"));
        assertThat(h.scheduler.preemptionStats().reclaimDecisions()).isEqualTo(1);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void withoutABandTheSameLayoutReclaims() {
        SchedulerHarness h = layout(0);
        h.ticks(4, Duration.ofSeconds(6));
        assertThat(evictor.asked()).hasSize(1);
    }

    @Test
    void aBandOutsideZeroToOneIsRefusedWithItsName() {
        for (double bad : new double[] {-0.01, 1, 1.5, Double.NaN}) {
            assertThatThrownBy(() -> PreemptionSettings.DEFAULT.withReclaimBand(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("reclaim band");
        }
        assertThat(PreemptionSettings.DEFAULT.reclaimBand()).isEqualTo(0.1);
    }
}
