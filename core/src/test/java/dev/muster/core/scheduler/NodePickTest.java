package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Which node a single pod's filter passes when Muster picks ({@link SchedulerConfig#pickNode}): the node the scoring
 * policy ranks best among those that fit, untainted before {@code PreferNoSchedule}, the earliest candidate on ties;
 * every node that fits when picking is off or the pod has soft preferences; every node with its reason when none fits.
 */
class NodePickTest {
    /** Four 8-cpu nodes: a has 6 cpu in use, b 2, c none, d none but carries a PreferNoSchedule taint and 6 in use. */
    private static SchedulerHarness cluster(SchedulerConfig config) {
        SchedulerHarness h = new SchedulerHarness(config);
        h.nodes(node("a", "8", "32Gi"), node("b", "8", "32Gi"), node("c", "8", "32Gi"));
        Node d = node("d", "8", "32Gi");
        h.nodes(new Node("d", d.allocatable(), true, Map.of(), true));
        h.nodes(node("gpu", "8", "32Gi", "nvidia.com/gpu", "4"));
        h.scheduler.upsertQueue(dev.muster.core.testing.Fixtures.queue("default"));
        h.scheduler.markSynced();
        h.scheduler.upsertPod(pod("on-a").requests("6", "1Gi").on("a").build());
        h.scheduler.upsertPod(pod("on-b").requests("2", "1Gi").on("b").build());
        h.scheduler.upsertPod(pod("on-d").requests("7", "1Gi").on("d").build());
        return h;
    }

    static Stream<Arguments> picks() {
        List<String> all = List.of("a", "b", "c", "d", "gpu");
        return Stream.of(
                // policy, candidates, request cpu, soft preferences, expected feasible
                Arguments.of(ScoringPolicy.BINPACK, all, "1", false, List.of("a")),        // fullest that fits
                Arguments.of(ScoringPolicy.BINPACK, all, "3", false, List.of("b")),        // a has only 2 left
                Arguments.of(ScoringPolicy.SPREAD, all, "1", false, List.of("c")),         // emptiest; gpu is as empty but scarce
                Arguments.of(ScoringPolicy.BINPACK, List.of("c", "gpu"), "1", false, List.of("c")), // GPU node left for GPU pods
                Arguments.of(ScoringPolicy.BINPACK, List.of("gpu", "c"), "1", false, List.of("c")),
                Arguments.of(ScoringPolicy.BINPACK, List.of("d", "c"), "1", false, List.of("c")),   // fuller d is tainted
                Arguments.of(ScoringPolicy.BINPACK, List.of("d"), "1", false, List.of("d")),        // tainted, but the only fit
                Arguments.of(ScoringPolicy.SPREAD, List.of("c", "gpu", "b"), "1", false, List.of("c")),
                Arguments.of(ScoringPolicy.BINPACK, all, "1", true, List.of("a", "b", "c", "d", "gpu")), // soft preferences
                Arguments.of(ScoringPolicy.BINPACK, all, "7", true, List.of("c", "gpu")));
    }

    @ParameterizedTest(name = "{0} {2} cpu on {1}, soft={3} → {4}")
    @MethodSource("picks")
    void singlePodPassesOnThePickedNodeOnly(ScoringPolicy policy, List<String> candidates, String cpu, boolean soft, List<String> expected) {
        SchedulerHarness h = cluster(SchedulerConfig.DEFAULT.withPolicy(policy));
        Pod p = pod("p").requests(cpu, "1Gi").build();

        FilterResult r = h.scheduler.filter(h.seen(p), candidates, soft);

        assertThat(r.feasible()).containsExactlyElementsOf(expected);
        assertThat(r.failed()).as("passed-over nodes are left out of the answer").doesNotContainKeys(expected.toArray(String[]::new));
        if (!soft) {
            assertThat(r.failed()).isEmpty();
        }
    }

    @Test
    void tiesGoToTheEarliestCandidate() {
        SchedulerHarness h = cluster(SchedulerConfig.DEFAULT.withPolicy(ScoringPolicy.SPREAD));
        h.scheduler.upsertNode(node("e", "8", "32Gi"));
        Pod p = pod("p").requests("1", "1Gi").build();

        assertThat(h.scheduler.filter(h.seen(p), List.of("e", "c")).feasible()).containsExactly("e");
        assertThat(h.scheduler.filter(h.seen(p), List.of("c", "e")).feasible()).containsExactly("c");
    }

    @Test
    void withoutPickingEveryNodeThatFitsPasses() {
        SchedulerHarness h = cluster(SchedulerConfig.DEFAULT.withPickNode(false));
        Pod p = pod("p").requests("3", "1Gi").build();

        FilterResult r = h.scheduler.filter(h.seen(p), List.of("a", "b", "c", "d", "gpu"));

        assertThat(r.feasible()).containsExactly("b", "c", "gpu");
        assertThat(r.failed()).containsOnlyKeys("a", "d");
    }

    @Test
    void whenNothingFitsInMustersViewKubeSchedulersViewDecides() {
        // kube-scheduler offers only nodes it found room on; where Muster sees none (and no gang holds it), Muster's view
        // is behind (a delete, a node update it has not applied yet), and catching up is no event kube-scheduler would
        // retry the pod on: refusing could park the pod for minutes
        SchedulerHarness h = cluster(SchedulerConfig.DEFAULT);
        Pod p = pod("p").requests("9", "1Gi").build();

        FilterResult r = h.scheduler.filter(h.seen(p), List.of("a", "b", "c", "unknown"));

        assertThat(r.feasible()).containsExactly("a", "b", "c", "unknown");
        assertThat(r.failed()).isEmpty();
    }

    @Test
    void aPickedPodIsChargedWhereItBinds() {
        SchedulerHarness h = cluster(SchedulerConfig.DEFAULT);
        Pod p = pod("p").requests("2", "1Gi").build();
        h.scheduler.upsertPod(p);

        assertThat(h.schedule(p).join().ok()).isTrue();

        assertThat(h.binder.bound()).containsEntry(p.uid(), "a");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangMemberPassesOnItsSlotNodeAndTheOtherCandidatesAreLeftOut() {
        SchedulerHarness h = cluster(SchedulerConfig.DEFAULT);
        h.scheduler.upsertPodGroup(podGroup("default", "pg", 2, "default"));
        Pod m0 = pod("m0").gang("pg").requests("4", "1Gi").build();
        Pod m1 = pod("m1").gang("pg").requests("4", "1Gi").build();
        h.scheduler.upsertPod(m0);
        h.scheduler.upsertPod(m1);

        FilterResult r = h.scheduler.filter(h.seen(m0), List.of("a", "b", "c", "d", "gpu"), true);

        assertThat(r.feasible()).hasSize(1);
        assertThat(r.failed()).isEmpty();
        assertThat(r.unresolvable()).isEmpty();
    }
}
