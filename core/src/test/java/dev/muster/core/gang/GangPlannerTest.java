package dev.muster.core.gang;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class GangPlannerTest {

    record Case(String name, Consumer<Ledger> cluster, List<GangPlanner.Member> members, GangPlanner.Requirement req,
                ScoringPolicy policy, String expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<GangPlanner.Member> members(int n, String task, Resources r) {
        List<GangPlanner.Member> m = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            m.add(new GangPlanner.Member(task + i, task, r));
        }
        return m;
    }

    static List<GangPlanner.Member> concat(List<GangPlanner.Member> a, List<GangPlanner.Member> b) {
        List<GangPlanner.Member> m = new ArrayList<>(a);
        m.addAll(b);
        return m;
    }

    static GangPlanner.Requirement min(int n) {
        return new GangPlanner.Requirement(n, Map.of(), 0, Map.of());
    }

    static Consumer<Ledger> nodes(int n, String cpu, String mem) {
        return l -> {
            for (int i = 0; i < n; i++) {
                l.upsertNode(node("n" + i, cpu, mem));
            }
        };
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                new Case("gang fits exactly", nodes(2, "8", "32Gi"), members(4, "", req("4", "16Gi")), min(4), ScoringPolicy.BINPACK,
                        "n0=2, n1=2"),
                new Case("binpack fills the fullest node first", l -> {
                    nodes(3, "8", "32Gi").accept(l);
                    l.putPod(new PodRecord(new PodId("x", "d", "x"), "n2", req("4", "4Gi"), null, "", false));
                }, members(2, "", req("2", "2Gi")), min(2), ScoringPolicy.BINPACK, "n2=2"),
                new Case("spread uses the emptiest nodes", nodes(3, "8", "32Gi"), members(3, "", req("1", "1Gi")), min(3), ScoringPolicy.SPREAD,
                        "n0=1, n1=1, n2=1"),
                new Case("does not fit: says what is short", nodes(5, "4", "16Gi"), members(8, "", req("4", "16Gi")), min(8), ScoringPolicy.BINPACK,
                        "unfit: needs 8×(4 cpu, 16Gi memory), fits 5"),
                new Case("optional members beyond minMember are best effort", nodes(1, "8", "32Gi"), members(3, "", req("4", "1Gi")), min(2), ScoringPolicy.BINPACK,
                        "n0=2"),
                new Case("minTaskMember places the required task first", nodes(1, "8", "32Gi"),
                        concat(members(3, "worker", req("2", "1Gi")), members(1, "ps", req("4", "1Gi"))),
                        new GangPlanner.Requirement(2, Map.of("ps", 1), 0, Map.of()), ScoringPolicy.BINPACK, "n0=3"),
                new Case("missing task members is NotEnoughTasks", nodes(1, "8", "32Gi"), members(3, "worker", req("1", "1Gi")),
                        new GangPlanner.Requirement(2, Map.of("ps", 1), 0, Map.of()), ScoringPolicy.BINPACK, "unfit: task ps needs 1 members, 0 exist"),
                new Case("members already bound count toward minMember", nodes(1, "8", "32Gi"), members(1, "", req("1", "1Gi")),
                        new GangPlanner.Requirement(4, Map.of(), 3, Map.of("", 3)), ScoringPolicy.BINPACK, "n0=1"),
                new Case("gpu gang lands only on gpu nodes", l -> {
                    nodes(2, "32", "128Gi").accept(l);
                    l.upsertNode(node("gpu0", "32", "128Gi", "nvidia.com/gpu", "8"));
                    l.upsertNode(node("gpu1", "32", "128Gi", "nvidia.com/gpu", "8"));
                }, members(16, "", req("1", "1Gi", "nvidia.com/gpu", "1")), min(16), ScoringPolicy.BINPACK, "gpu0=8, gpu1=8"),
                new Case("overcommitted and unschedulable nodes are skipped", l -> {
                    nodes(1, "8", "32Gi").accept(l);
                    l.upsertNode(new dev.muster.core.model.Node("cordoned", req("8", "32Gi"), false));
                    l.upsertNode(node("over", "8", "32Gi"));
                    l.putPod(new PodRecord(new PodId("y", "d", "y"), "over", req("9", "1Gi"), null, "", false));
                }, members(3, "", req("4", "1Gi")), min(3), ScoringPolicy.BINPACK, "unfit: needs 3×(4 cpu, 1Gi memory), fits 2"),
                new Case("reserved capacity of other gangs is not free", l -> {
                    nodes(1, "8", "32Gi").accept(l);
                    l.reserve(new dev.muster.core.model.GangKey("d", "other"), "q", 0, List.of(new Ledger.Placement("n0", req("6", "1Gi"), "")));
                }, members(1, "", req("4", "1Gi")), min(1), ScoringPolicy.BINPACK, "unfit: needs 1×(4 cpu, 1Gi memory), fits 0"))
                .map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void plans(Case c) {
        Ledger ledger = new Ledger();
        c.cluster().accept(ledger);
        GangPlanner.Result r = new GangPlanner(c.policy()).plan(ledger.nodes(), c.members(), c.req());
        String actual = switch (r) {
            case GangPlanner.Result.Unfit u -> "unfit: " + u.reason();
            case GangPlanner.Result.Planned p -> p.placements().stream()
                    .collect(Collectors.groupingBy(Ledger.Placement::node, java.util.TreeMap::new, Collectors.counting()))
                    .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
        };
        assertThat(actual).isEqualTo(c.expected());
    }
}
