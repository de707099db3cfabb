package dev.muster.core.preempt;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.GangAdmission.PlanInput;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.preempt.PreemptionPlanner.Result;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import dev.muster.core.resources.Resources;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pure planner: the fewest units in the caller's order, then every unit the plan does not need given back. */
class PreemptionPlannerTest {
    private final Ledger ledger = new Ledger();
    private final PreemptionPlanner planner = new PreemptionPlanner(new GangPlanner(ScoringPolicy.BINPACK));

    /** {@code nodes} full nodes of 4 cpu: each holds one pod of 4 cpu. */
    private List<Unit> fullNodes(int nodes) {
        List<Unit> units = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            ledger.upsertNode(node("n" + i, "4", "16Gi"));
            units.add(single("p" + i, "n" + i, "4"));
        }
        return units;
    }

    private Unit single(String name, String node, String cpu) {
        PodId id = new PodId(name + "-uid", "default", name);
        ledger.putPod(new PodRecord(id, node, req(cpu, "1Gi"), null, "", false));
        return new Unit(null, "", 0, Part.SINGLE, List.of(new Victim(id, null, "", 0, node, req(cpu, "1Gi"))), 0);
    }

    private static PlanInput gang(int members, String cpu) {
        List<GangPlanner.Member> ms = new ArrayList<>();
        for (int i = 0; i < members; i++) {
            ms.add(new GangPlanner.Member("m" + i, "", req(cpu, "1Gi")));
        }
        return new PlanInput(ms, new GangPlanner.Requirement(members, Map.of(), 0, Map.of()), null);
    }

    private static List<String> names(Result r) {
        return ((Result.Planned) r).victims().stream().map(u -> u.pods().getFirst().pod().name()).toList();
    }

    /** {@code units} as the planner reads them, with {@code read[0]} how many it has read so far. */
    private static PreemptionPlanner.Units counting(List<Unit> units, int[] read) {
        return new PreemptionPlanner.Units() {
            @Override
            public boolean reach(int k) {
                read[0] = Math.max(read[0], Math.min(k, units.size()));
                return units.size() >= k;
            }

            @Override
            public int available() {
                return read[0];
            }

            @Override
            public List<Unit> prefix(int k) {
                reach(k);
                return units.subList(0, Math.min(k, units.size()));
            }
        };
    }

    @Test
    void takesTheShortestPrefixInTheCallersOrder() {
        List<Unit> units = fullNodes(8);
        Result r = planner.plan(ledger.nodes(), gang(3, "4"), Map.of(), PreemptionPlanner.Units.of(units));
        assertThat(names(r)).containsExactly("p0", "p1", "p2");
        assertThat(((Result.Planned) r).victimNodes()).isEqualTo(3);
    }

    @Test
    void givesBackUnitsOnNodesThePlanDoesNotUse() {
        ledger.upsertNode(node("small", "2", "16Gi"));
        Unit onSmall = single("tiny", "small", "2"); // first in the caller's order, but a 4-cpu member never fits there
        List<Unit> units = new ArrayList<>(List.of(onSmall));
        units.addAll(fullNodes(2));
        Result r = planner.plan(ledger.nodes(), gang(2, "4"), Map.of(), PreemptionPlanner.Units.of(units));
        assertThat(names(r)).containsExactly("p0", "p1");
    }

    @Test
    void neverTakesUnitsOnNodesTheMembersOwnConstraintsExclude() {
        List<Unit> units = fullNodes(4);
        // n0 and n1 carry a taint the members do not tolerate; only the victims on n2 and n3 make room they may use
        ledger.upsertNode(new dev.muster.core.model.Node("n0", node("n0", "4", "16Gi").allocatable(), true, Map.of(),
                List.of(new dev.muster.core.model.NodeTaint("gpu", "", "NoSchedule")), false));
        ledger.upsertNode(new dev.muster.core.model.Node("n1", node("n1", "4", "16Gi").allocatable(), true, Map.of(),
                List.of(new dev.muster.core.model.NodeTaint("gpu", "", "NoExecute")), false));
        Result r = planner.plan(ledger.nodes(), gang(2, "4"), Map.of(), PreemptionPlanner.Units.of(units));
        assertThat(names(r)).containsExactly("p2", "p3");

        // pinned by the nodes kube-scheduler offered: only n3
        PlanInput in = gang(1, "4");
        PlanInput onlyN3 = new PlanInput(List.of(in.members().getFirst().onlyOn(java.util.Set.of("n3"))), in.requirement(), null);
        assertThat(names(planner.plan(ledger.nodes(), onlyN3, Map.of(), PreemptionPlanner.Units.of(units)))).containsExactly("p3");

        // no node it may use: nothing is taken
        PlanInput nowhere = new PlanInput(List.of(in.members().getFirst().onlyOn(java.util.Set.of())), in.requirement(), null);
        assertThat(planner.plan(ledger.nodes(), nowhere, Map.of(), PreemptionPlanner.Units.of(units))).isInstanceOf(Result.Unfit.class);
    }

    @Test
    void aMemberNoNodeCouldHoldEvenEmptyReadsNoVictimAndTakesNothing() {
        List<Unit> units = fullNodes(6);
        ledger.upsertNode(node("small", "2", "16Gi"));
        units.add(single("tiny", "small", "2"));
        int[] read = {0};
        PreemptionPlanner.Units counting = counting(units, read);
        // 8 cpu: more than any node has, however many pods leave it (the candidates of a large cluster are every
        // lower-priority pod: none is read)
        Result r = planner.plan(ledger.nodes(), gang(2, "8"), Map.of(), counting);
        assertThat(r).isInstanceOf(Result.Unfit.class);
        assertThat(((Result.Unfit) r).reason()).startsWith(RoomEvenEmpty.NO_NODE).hasSizeGreaterThan(RoomEvenEmpty.NO_NODE.length());
        assertThat(read[0]).as("victims read").isZero();

        // a node that would hold it once empty: the victims there are read, and taken
        ledger.upsertNode(node("big", "8", "32Gi"));
        units.add(single("on-big", "big", "8"));
        Result onBig = planner.plan(ledger.nodes(), gang(1, "8"), Map.of(), counting);
        assertThat(names(onBig)).containsExactly("on-big");
    }

    @Test
    void aGangMoreThanEveryNodeItMayUseCouldHoldEvenEmptyReadsNoVictim() {
        List<Unit> units = fullNodes(4); // 4 × 4 cpu, each full
        int[] read = {0};
        PreemptionPlanner.Units counting = counting(units, read);
        // 5 × 4 cpu: each member fits a node once it is empty, the five together never
        Result r = planner.plan(ledger.nodes(), gang(5, "4"), Map.of(), counting);
        assertThat(r).isInstanceOf(Result.Unfit.class);
        assertThat(((Result.Unfit) r).reason()).startsWith(RoomEvenEmpty.TOO_LITTLE).contains("its 5 members");
        assertThat(read[0]).as("victims read").isZero();

        // with one member bound already, four are left to place: the four nodes' victims are read, and taken
        PlanInput fiveOneBound = new PlanInput(gang(4, "4").members(), new GangPlanner.Requirement(5, Map.of(), 1, Map.of()), null);
        assertThat(names(planner.plan(ledger.nodes(), fiveOneBound, Map.of(), counting))).containsExactly("p0", "p1", "p2", "p3");

        // a member kube-scheduler pinned to two nodes counts only those: two members need more than they hold
        PlanInput two = gang(2, "4");
        List<GangPlanner.Member> pinned = two.members().stream().map(m -> m.onlyOn(java.util.Set.of("n0"))).toList();
        Result onOne = planner.plan(ledger.nodes(), new PlanInput(pinned, two.requirement(), null), Map.of(), counting);
        assertThat(((Result.Unfit) onOne).reason()).startsWith(RoomEvenEmpty.TOO_LITTLE);
    }

    @Test
    void givesBackOneByOneTheVictimsTheCallerLeastWantedToTake() {
        // two pods of 2 cpu on n0 come first; then a whole node: the gang's 4-cpu member needs either n0 emptied or n1
        ledger.upsertNode(node("n0", "4", "16Gi"));
        ledger.upsertNode(node("n1", "4", "16Gi"));
        Unit a = single("a", "n0", "2");
        Unit b = single("b", "n0", "2");
        Unit c = single("c", "n1", "4");
        Result r = planner.plan(ledger.nodes(), gang(1, "4"), Map.of(), PreemptionPlanner.Units.of(List.of(a, b, c)));
        assertThat(names(r)).containsExactly("a", "b");
    }

    @Test
    void aGangsSurplusIsNeverGivenBackWhileItsRestIsTaken() {
        ledger.upsertNode(node("n0", "4", "16Gi"));
        ledger.upsertNode(node("n1", "2", "16Gi"));
        GangKey g = new GangKey("default", "elastic");
        PodId s = new PodId("s-uid", "default", "s");
        PodId r0 = new PodId("r-uid", "default", "r");
        ledger.putPod(new PodRecord(s, "n1", req("2", "1Gi"), g, "q", false));
        ledger.putPod(new PodRecord(r0, "n0", req("4", "1Gi"), g, "q", false));
        Unit surplus = new Unit(g, "q", 0, Part.SURPLUS, List.of(new Victim(s, g, "q", 0, "n1", req("2", "1Gi"))), 0);
        Unit rest = new Unit(g, "q", 0, Part.REST, List.of(new Victim(r0, g, "q", 0, "n0", req("4", "1Gi"))), 0);
        // the member needs only n0's room (the rest's; it never fits on n1), but the surplus on n1 goes with the rest
        Result r = planner.plan(List.of(ledger.node("n0"), ledger.node("n1")), gang(1, "4"), Map.of(), PreemptionPlanner.Units.of(List.of(surplus, rest)));
        assertThat(((Result.Planned) r).victims()).extracting(Unit::part).containsExactly(Part.SURPLUS, Part.REST);
    }

    @Test
    void nothingIsChosenWhenEvenEveryUnitGoneIsNotEnough() {
        // two full nodes of 5 cpu: 10 cpu even empty would hold three members of 3 cpu in sum, but each node holds one
        List<Unit> units = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            ledger.upsertNode(node("n" + i, "5", "16Gi"));
            units.add(single("p" + i, "n" + i, "5"));
        }
        Result r = planner.plan(ledger.nodes(), gang(3, "3"), Map.of(), PreemptionPlanner.Units.of(units));
        assertThat(r).isInstanceOf(Result.Unfit.class);
        assertThat(((Result.Unfit) r).reason()).isEqualTo("needs 3×(3 cpu, 1Gi memory), fits 2");
    }

    @Test
    void aGangThatFitsOnFreeRoomTakesNobody() {
        List<Unit> units = fullNodes(2);
        ledger.upsertNode(node("free", "8", "16Gi"));
        assertThat(planner.plan(ledger.nodes(), gang(2, "4"), Map.of(), PreemptionPlanner.Units.of(units))).isInstanceOf(Result.FitsNow.class);
    }

    @Test
    void roomSetAsideForTheGangCountsAsItsOwn() {
        ledger.upsertNode(node("n0", "4", "16Gi"));
        ledger.setAside(new GangKey("default", "next"), List.of(new Ledger.Placement("n0", req("4", "1Gi"), "")));
        ledger.upsertNode(node("n1", "4", "16Gi"));
        List<Unit> units = List.of(single("p1", "n1", "4"));
        assertThat(planner.plan(ledger.nodes(), gang(2, "4"), Map.of(), PreemptionPlanner.Units.of(units))).isInstanceOf(Result.Unfit.class);
        Result r = planner.plan(ledger.nodes(), gang(2, "4"), Map.of("n0", req("4", "1Gi")), PreemptionPlanner.Units.of(units));
        assertThat(names(r)).containsExactly("p1");
    }
}
