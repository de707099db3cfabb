package dev.muster.core.gang;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.model.TopologyRequest.Mode;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The planner with topology constraints, on a cluster of 2 zones × 2 blocks × 2 racks × 2 nodes of 8 cpu (a 4-cpu
 * member: 4 per rack, 8 per block, 16 per zone, 32 in all). Outcomes are written as the domain the plan is confined
 * to and the members per rack, or the refusal's cause and text.
 */
class TopologyPlannerTest {
    static final TopologyLevels LEVELS = TopologyLevels.of(List.of("zone", "block", "rack", "kubernetes.io/hostname"));
    static final Resources MEMBER = req("4", "1Gi");

    record Case(String name, Consumer<Ledger> extra, int members, TopologyRequest topology, Set<String> anchors, String expected) {
        @Override
        public String toString() {
            return name;
        }
    }

    static String nodeName(int z, int b, int r, int n) {
        return "z" + z + "b" + b + "r" + r + "n" + n;
    }

    static Ledger cluster() {
        Ledger l = new Ledger();
        for (int z = 0; z < 2; z++) {
            for (int b = 0; b < 2; b++) {
                for (int r = 0; r < 2; r++) {
                    for (int n = 0; n < 2; n++) {
                        String name = nodeName(z, b, r, n);
                        l.upsertNode(node(name, "8", "32Gi").withLabels(Map.of("zone", "z" + z, "block", "b" + b, "rack", "r" + r,
                                "kubernetes.io/hostname", name)));
                    }
                }
            }
        }
        return l;
    }

    static void use(Ledger l, String node, String cpu) {
        l.putPod(new PodRecord(new PodId(node + "-" + cpu, "other", node + "-" + cpu), node, req(cpu, "1Gi"), null, "", false));
    }

    static List<GangPlanner.Member> members(int n) {
        List<GangPlanner.Member> m = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            m.add(new GangPlanner.Member("m" + i, "", MEMBER));
        }
        return m;
    }

    static TopologyRequest required(String key) {
        return TopologyRequest.byKey(Mode.REQUIRED, key);
    }

    static TopologyRequest preferred(String key) {
        return TopologyRequest.byKey(Mode.PREFERRED, key);
    }

    static Case c(String name, int members, TopologyRequest t, String expected) {
        return new Case(name, l -> {}, members, t, Set.of(), expected);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                c("required rack: a gang that fills one rack lands in it", 4, required("rack"), "[rack=z0/b0/r0] z0/b0/r0=4"),
                c("required host: two members on one node", 2, required("kubernetes.io/hostname"),
                        "[kubernetes.io/hostname=z0/b0/r0/z0b0r0n0] z0/b0/r0=2"),
                c("required block: spans racks of one block only", 6, required("block"), "[block=z0/b0] z0/b0/r0=4, z0/b0/r1=2"),
                c("required zone: spans blocks of one zone only", 12, required("zone"), "[zone=z0] z0/b0/r0=4, z0/b0/r1=4, z0/b1/r0=4"),
                c("required rack: fits no rack although the cluster has room", 5, required("rack"),
                        "TOPOLOGY: required topology rack: no single domain has room; best z0/b0/r0 fits 4 of 5 members "
                                + "(needs 5×(4 cpu, 1Gi memory), fits 4); the cluster as a whole has room for them"),
                c("required rack: nothing fits anywhere", 33, required("rack"),
                        "RESOURCES: required topology rack: no single domain has room; best z0/b0/r0 fits 4 of 33 members "
                                + "(needs 33×(4 cpu, 1Gi memory), fits 4); the cluster as a whole fits only 32"),
                c("Volcano tier 1 is the rack level (hostname is no tier)", 4, TopologyRequest.byTier(Mode.REQUIRED, 1),
                        "[rack=z0/b0/r0] z0/b0/r0=4"),
                c("Volcano tier 2 is the block level", 6, TopologyRequest.byTier(Mode.REQUIRED, 2), "[block=z0/b0] z0/b0/r0=4, z0/b0/r1=2"),
                c("Volcano tier above the widest level constrains nothing", 20, TopologyRequest.byTier(Mode.REQUIRED, 9),
                        "[anywhere] z0/b0/r0=4, z0/b0/r1=4, z0/b1/r0=4, z0/b1/r1=4, z1/b0/r0=4"),
                c("required level that is not configured is refused by name", 1, required("example.com/pod"),
                        "TOPOLOGY: required topology level example.com/pod is not configured (levels: zone > block > rack > kubernetes.io/hostname)"),
                c("preferred level that is not configured: anywhere", 2, preferred("example.com/pod"), "[anywhere] z0/b0/r0=2"),
                c("preferred rack: one rack when it fits (the reservation is not confined)", 3, preferred("rack"), "[anywhere] z0/b0/r0=3"),
                c("preferred rack: one block when no rack fits", 7, preferred("rack"), "[anywhere] z0/b0/r0=4, z0/b0/r1=3"),
                c("preferred rack: one zone when no block fits", 9, preferred("rack"), "[anywhere] z0/b0/r0=4, z0/b0/r1=4, z0/b1/r0=1"),
                c("preferred rack: the fewest racks when no zone fits", 18, preferred("rack"),
                        "[anywhere] z0/b0/r0=4, z0/b0/r1=4, z0/b1/r0=4, z0/b1/r1=4, z1/b0/r0=2"),
                new Case("required rack: the tightest rack wins, whole racks stay free", l -> {
                    use(l, nodeName(1, 1, 0, 0), "4"); // z1/b1/r0 has room for 3 more: tightest for 3
                    use(l, nodeName(0, 1, 1, 0), "8"); // z0/b1/r1 has room for 2: too small
                }, 3, required("rack"), Set.of(), "[rack=z1/b1/r0] z1/b1/r0=3"),
                new Case("required rack: the rack of a member already bound", l -> use(l, nodeName(1, 0, 1, 1), "4"), 2, required("rack"),
                        Set.of(nodeName(1, 0, 1, 1)), "[rack=z1/b0/r1] z1/b0/r1=2"),
                new Case("required rack: members already in two racks", l -> {}, 2, required("rack"),
                        Set.of(nodeName(0, 0, 0, 0), nodeName(1, 1, 1, 1)), "TOPOLOGY: topology rack: members are already in 2 domains (z0/b0/r0, z1/b1/r1)"),
                new Case("required rack: nodes without the label take no member", l -> {
                    l.upsertNode(node("plain", "64", "64Gi"));
                }, 4, required("rack"), Set.of(), "[rack=z0/b0/r0] z0/b0/r0=4"),
                new Case("required rack: a full rack is skipped for the next that fits", l -> {
                    use(l, nodeName(0, 0, 0, 0), "8");
                    use(l, nodeName(0, 0, 0, 1), "1");
                }, 4, required("rack"), Set.of(), "[rack=z0/b0/r1] z0/b0/r1=4"))
                .map(Arguments::of);
    }

    static String render(GangPlanner.Result r) {
        return switch (r) {
            case GangPlanner.Result.Unfit u -> u.cause() + ": " + u.reason();
            case GangPlanner.Result.Planned p -> "[" + (p.domain() == null ? "anywhere" : p.domain()) + "] " + p.placements().stream()
                    .collect(Collectors.groupingBy(pl -> rackOf(pl.node()), TreeMap::new, Collectors.counting()))
                    .entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(", "));
        };
    }

    static String rackOf(String node) {
        return node.substring(0, 2) + "/" + node.substring(2, 4) + "/" + node.substring(4, 6);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void plans(Case c) {
        Ledger ledger = cluster();
        c.extra().accept(ledger);
        GangPlanner.Result r = new GangPlanner(ScoringPolicy.BINPACK, LEVELS).plan(ledger.nodes(), members(c.members()),
                new GangPlanner.Requirement(c.members(), Map.of(), c.anchors().size(), Map.of()), Map.of(),
                new GangPlanner.Topology(c.topology(), c.anchors()));
        assertThat(render(r)).isEqualTo(c.expected());
    }

    @Test
    void gangsRequiringRacksPackRacksAndLeaveWholeRacksFree() {
        Ledger ledger = cluster();
        GangPlanner planner = new GangPlanner(ScoringPolicy.SPREAD, LEVELS); // spread alone would scatter members
        List<String> domains = new ArrayList<>();
        for (int g = 0; g < 6; g++) {
            GangPlanner.Result r = planner.plan(ledger.nodes(), members(2), new GangPlanner.Requirement(2, Map.of(), 0, Map.of()),
                    Map.of(), new GangPlanner.Topology(required("rack"), Set.of()));
            assertThat(r).as("gang %d", g).isInstanceOf(GangPlanner.Result.Planned.class);
            GangPlanner.Result.Planned p = (GangPlanner.Result.Planned) r;
            ledger.reserve(new GangKey("d", "g" + g), "q", 0, p.placements(), p.domain());
            domains.add(p.domain().path());
        }
        // two 2-member gangs fill a rack before the next rack is touched
        assertThat(domains).containsExactly("z0/b0/r0", "z0/b0/r0", "z0/b0/r1", "z0/b0/r1", "z0/b1/r0", "z0/b1/r0");
        assertThat(freeWholeRacks(ledger)).isEqualTo(5);
    }

    @Test
    void withoutTopologySpreadScattersTheSameGangsOverRacks() {
        Ledger ledger = cluster();
        GangPlanner planner = new GangPlanner(ScoringPolicy.SPREAD, LEVELS);
        for (int g = 0; g < 6; g++) {
            GangPlanner.Result.Planned p = (GangPlanner.Result.Planned) planner.plan(ledger.nodes(), members(2),
                    new GangPlanner.Requirement(2, Map.of(), 0, Map.of()));
            ledger.reserve(new GangKey("d", "g" + g), "q", 0, p.placements());
        }
        assertThat(freeWholeRacks(ledger)).isLessThan(5);
    }

    static int freeWholeRacks(Ledger ledger) {
        Map<String, Boolean> empty = new TreeMap<>();
        for (NodeEntry e : ledger.nodes()) {
            String rack = LEVELS.domainOf(e.labels(), 2);
            empty.merge(rack, e.inUse().isZero(), Boolean::logicalAnd);
        }
        return (int) empty.values().stream().filter(b -> b).count();
    }
}
