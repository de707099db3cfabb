package dev.muster.core.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import java.util.List;
import org.junit.jupiter.api.Test;

class PodGroupConditionsTest {
    @Test
    void aReservedGangWaitingForATasksPodsSaysSoBeforeThePodsExist() {
        Refusal why = Refusal.of(Refusal.Cause.TASK_MEMBERS_MISSING,
                "gang ns/g: waiting for pods of task ps (0/1 pods exist); 3 slots held for 60s (2/3 pods exist)");
        List<PodGroupCondition> out = PodGroupConditions.desired(PodGroupPhase.PENDING, 3, GangState.RESERVED, why,
                new MemberCounts(2, 0, 0, 0, 0));
        assertThat(out).singleElement().satisfies(c -> {
            assertThat(c.type()).isEqualTo(PodGroupCondition.UNSCHEDULABLE);
            assertThat(c.reason()).isEqualTo(PodGroupCondition.NOT_ENOUGH_PODS_OF_TASK);
            assertThat(c.message()).isEqualTo(why.text());
        });
    }

    @Test
    void aReservedGangWithEveryTasksPodsHasNoCondition() {
        assertThat(PodGroupConditions.desired(PodGroupPhase.PENDING, 3, GangState.RESERVED,
                Refusal.note("3 slots held for 60s (2/3 pods exist)"), new MemberCounts(2, 0, 0, 0, 0))).isEmpty();
    }
}
