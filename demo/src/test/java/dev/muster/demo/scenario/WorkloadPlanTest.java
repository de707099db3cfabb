package dev.muster.demo.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadPlanTest {
    private static final String YAML = """
            seed: SEED
            nodes:
              - {group: n, count: 1, cpu: 8, memory: 8Gi}
            queues:
              - name: q
            gangs:
              - {name: g, queue: q, count: 50, size: 3-12, minMember: 2-20, cpu: 1-2, memory: 1Gi, duration: 10s-20s, start: 1m, rate: 2/s}
              - {name: h, queue: q, count: 10, size: 4, minMember: 75%, cpu: 1, memory: 1Gi, duration: 5s, rate: 1/s}
            pods:
              - {name: p, count: 30, cpu: 100m, memory: 64Mi, duration: 1s-2s, rate: 3/s}
            """;

    private static WorkloadPlan plan(long seed) {
        return WorkloadPlan.of(ScenarioReader.parse(YAML.replace("SEED", Long.toString(seed)), "plan.yaml"));
    }

    @Test
    void theSameSeedGivesTheSamePlanAndAnotherSeedAnother() {
        assertThat(plan(7)).isEqualTo(plan(7));
        assertThat(plan(7)).isNotEqualTo(plan(8));
    }

    @Test
    void itemsArriveInTimeOrderAfterTheirStart() {
        List<WorkloadPlan.Item> items = plan(7).items();
        assertThat(items).hasSize(90);
        assertThat(items).isSortedAccordingTo((a, b) -> Long.compare(a.at(), b.at()));
        assertThat(items).filteredOn(i -> i instanceof WorkloadPlan.GangArrival g && g.podGroup().key().name().startsWith("g-"))
                .allMatch(i -> i.at() >= 60_000_000_000L);
    }

    @Test
    void gangsDrawSizeAndMinMemberWithinTheirRanges() {
        for (WorkloadPlan.Item i : plan(7).items()) {
            if (i instanceof WorkloadPlan.GangArrival g) {
                int size = g.pods().size();
                int min = g.podGroup().minMember();
                if (g.podGroup().key().name().startsWith("g-")) {
                    assertThat(size).isBetween(3, 12);
                    assertThat(min).isBetween(2, size);
                } else {
                    assertThat(size).isEqualTo(4);
                    assertThat(min).isEqualTo(3);
                }
                assertThat(g.pods()).extracting(WorkloadPlan.PlannedPod::requests).containsOnly(g.pods().getFirst().requests());
                assertThat(g.pods()).extracting(p -> p.id().name()).doesNotHaveDuplicates();
            }
        }
    }
}
