package dev.muster.core.ledger;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ledger records "impossible" truths instead of throwing. */
class LedgerTest {
    private final Ledger ledger = new Ledger();

    private static PodRecord pod(String name, String node, Resources r) {
        return new PodRecord(new PodId(name + "-uid", "default", name), node, r, null, "", false);
    }

    @Test
    void podsWhoseRequestsSaturateTheSumsGiveTheTrueSumBackWhenTheyLeave() {
        ledger.upsertNode(node("n", "8", "32Gi"));
        Resources huge = req("1", "5E");
        ledger.putPod(new PodRecord(new PodId("a-uid", "default", "a"), "n", huge, null, "q", false));
        ledger.putPod(new PodRecord(new PodId("b-uid", "default", "b"), "n", huge, null, "q", false));
        assertThat(ledger.node("n").used().memoryBytes()).isEqualTo(Long.MAX_VALUE);

        ledger.removePod("b-uid");
        assertThat(ledger.node("n").used()).isEqualTo(huge);
        assertThat(ledger.heldByQueue("q")).isEqualTo(huge);
        ledger.removePod("a-uid");
        assertThat(ledger.node("n").used().isZero()).isTrue();
        assertThat(ledger.heldByQueue("q").isZero()).isTrue();
        assertThat(ledger.checkInvariants()).isEmpty();
    }

    @Test
    void allocatableShrinkingBelowUseMarksTheNodeOvercommittedAndItRecovers() {
        ledger.upsertNode(node("n", "8", "32Gi"));
        ledger.putPod(pod("a", "n", req("4", "8Gi")));
        ledger.putPod(pod("b", "n", req("4", "8Gi")));

        ledger.upsertNode(node("n", "6", "32Gi")); // kubelet reserved more; allocatable shrank
        NodeEntry e = ledger.node("n");
        assertThat(e.overcommitted()).isTrue();
        assertThat(e.accepts(req("100m", "1Mi"))).isFalse();
        assertThat(e.free().cpuMillis()).isEqualTo(-2000);
        assertThat(ledger.overcommittedCount()).isEqualTo(1);

        ledger.removePod("b-uid");
        assertThat(e.overcommitted()).isFalse();
        assertThat(e.accepts(req("1", "1Gi"))).isTrue();
        assertThat(ledger.checkInvariants()).isEmpty();
    }

    @Test
    void podWithNodeNameOnAFullNodeIsRecordedNotRejected() {
        ledger.upsertNode(node("n", "4", "16Gi"));
        ledger.putPod(pod("fill", "n", req("4", "16Gi")));
        ledger.putPod(pod("by-hand", "n", req("2", "1Gi"))); // spec.nodeName set by a person

        assertThat(ledger.node("n").overcommitted()).isTrue();
        assertThat(ledger.node("n").podCount()).isEqualTo(2);
        ledger.removePod("fill-uid");
        assertThat(ledger.node("n").overcommitted()).isFalse();
        assertThat(ledger.checkInvariants()).isEmpty();
    }

    @Test
    void twoSchedulersPlacingOnTheSameNodeOvercommitItUntilPodsLeave() {
        ledger.upsertNode(node("n", "4", "16Gi"));
        ledger.putPod(pod("ours", "n", req("3", "8Gi")));
        ledger.putPod(pod("theirs", "n", req("3", "8Gi")));
        assertThat(ledger.node("n").overcommitted()).isTrue();
        ledger.removePod("theirs-uid");
        assertThat(ledger.node("n").overcommitted()).isFalse();
    }

    @Test
    void podOnAnUnknownNodeIsKeptAndCountsWhenTheNodeAppears() {
        ledger.putPod(pod("early", "late-node", req("1", "1Gi")));
        assertThat(ledger.node("late-node").known()).isFalse();
        assertThat(ledger.node("late-node").accepts(req("1m", "1"))).isFalse();

        ledger.upsertNode(node("late-node", "4", "16Gi"));
        assertThat(ledger.node("late-node").used()).isEqualTo(req("1", "1Gi"));
        assertThat(ledger.checkInvariants()).isEmpty();
    }

    @Test
    void removingANodeKeepsItsPodsAccountedUntilTheyLeave() {
        ledger.upsertNode(node("n", "4", "16Gi"));
        ledger.putPod(pod("p", "n", req("1", "1Gi")));
        ledger.removeNode("n");
        assertThat(ledger.node("n")).isNotNull();
        assertThat(ledger.node("n").known()).isFalse();
        ledger.removePod("p-uid");
        assertThat(ledger.node("n")).isNull();
        assertThat(ledger.checkInvariants()).isEmpty();
    }

    @Test
    void reservationIsInvisibleCapacityAndReleasesWhole() {
        ledger.upsertNode(Node.of("n", req("8", "32Gi").times(1)));
        GangKey g = new GangKey("default", "g");
        Reservation r = ledger.reserve(g, "q", 0, List.of(
                new Ledger.Placement("n", req("4", "16Gi"), ""), new Ledger.Placement("n", req("4", "16Gi"), "")));
        assertThat(ledger.node("n").accepts(req("1", "1Gi"))).isFalse();
        assertThat(ledger.heldByQueue("q")).isEqualTo(req("4", "16Gi").times(2));

        Slot s = r.slots().getFirst();
        s.claim("m0");
        ledger.consumeSlot(r, s, new PodRecord(new PodId("m0", "default", "m0"), "n", req("4", "16Gi"), g, "q", true));
        assertThat(ledger.node("n").used()).isEqualTo(req("4", "16Gi"));
        assertThat(ledger.node("n").reserved()).isEqualTo(req("4", "16Gi"));
        assertThat(ledger.checkInvariants()).isEmpty();

        ledger.releaseReservation(g);
        assertThat(ledger.node("n").reserved().isZero()).isTrue();
        assertThat(ledger.heldByQueue("q")).isEqualTo(req("4", "16Gi"));
        assertThat(ledger.checkInvariants()).isEmpty();
    }

    @Test
    void invariantCheckCatchesABookThatDoesNotBalance() {
        ledger.upsertNode(node("n", "4", "16Gi"));
        ledger.putPod(pod("p", "n", req("1", "1Gi")));
        ledger.node("n").addUsed(req("1", "1Gi")); // corrupt on purpose
        assertThat(ledger.checkInvariants()).anySatisfy(p -> assertThat(p).contains("used"));
    }

    @Test
    void aCandidateFoundByIdIsTheEntryFoundByNameThroughNodesComingGoingAndComingBack() {
        java.util.Random random = new java.util.Random(13);
        List<String> universe = new java.util.ArrayList<>();
        for (int i = 0; i < 40; i++) {
            universe.add("cand-" + i);
        }
        universe.add("cand-never-registered");
        for (int step = 0; step < 2_000; step++) {
            String n = universe.get(random.nextInt(universe.size() - 1));
            switch (random.nextInt(4)) {
                case 0 -> ledger.upsertNode(node(n, "4", "16Gi"));
                case 1 -> ledger.removeNode(n);
                case 2 -> ledger.putPod(pod("p-" + n + "-" + step % 3, n, req("1", "1Gi"))); // may create a placeholder entry
                default -> ledger.removePod("p-" + n + "-" + step % 3 + "-uid");
            }
            // a fresh String for every name: the lookup must not depend on the caller holding the registered instance
            List<String> asSent = universe.stream().map(String::new).toList();
            NodeList withIds = NodeList.of(asSent);
            for (int i = 0; i < asSent.size(); i++) {
                NodeEntry byName = ledger.node(asSent.get(i));
                assertThat(ledger.candidate(withIds, i)).as("%s at step %s", asSent.get(i), step).isSameAs(byName);
                assertThat(ledger.candidate(asSent, i)).isSameAs(byName);
            }
        }
        assertThat(NodeList.of(universe).id(universe.size() - 1)).isEqualTo(NodeNames.NONE);
        assertThat(ledger.checkInvariants()).isEmpty();
    }

    @Test
    void freeRoomIsTheFreeRoomOfTheNodesThatTakePlacements() {
        ledger.upsertNode(node("room-a", "8", "32Gi"));
        ledger.upsertNode(node("room-b", "4", "16Gi", "example.com/gpu", "2"));
        ledger.upsertNode(new Node("room-cordoned", req("64", "256Gi"), false));
        ledger.upsertNode(node("room-full", "2", "4Gi"));
        ledger.putPod(pod("on-a", "room-a", req("3", "2Gi")));
        ledger.putPod(pod("over", "room-full", req("3", "1Gi"))); // overcommitted: takes nothing new
        ledger.reserve(new GangKey("default", "g"), "q", 0, List.of(new Ledger.Placement("room-b", req("1", "1Gi"), "")));

        Resources expected = Resources.ZERO;
        for (NodeEntry e : ledger.nodes()) {
            if (e.takesPlacements()) {
                expected = expected.plus(e.free());
            }
        }
        assertThat(ledger.freeRoom()).isEqualTo(expected);
        assertThat(ledger.freeRoom().cpuMillis()).isEqualTo(5_000 + 3_000); // room-a after its pod, room-b after its slot
        assertThat(ledger.freeRoom().get("example.com/gpu")).isEqualTo(2);
    }
}
