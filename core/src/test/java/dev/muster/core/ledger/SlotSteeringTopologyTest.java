package dev.muster.core.ledger;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.scoring.ScoringPolicy;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Slot moves, claims and relocations never take a slot out of its reservation's required domain. */
class SlotSteeringTopologyTest {
    static final TopologyLevels LEVELS = TopologyLevels.of(List.of("zone", "rack"));

    static Ledger ledger() {
        Ledger l = new Ledger();
        for (String n : List.of("a1", "a2", "b1")) {
            l.upsertNode(node(n, "8", "32Gi").withLabels(Map.of("zone", "z", "rack", n.substring(0, 1))));
        }
        l.upsertNode(node("bare", "8", "32Gi"));
        return l;
    }

    @Test
    void movesClaimsAndRelocationsStayInTheRequiredRack() {
        Ledger l = ledger();
        SlotSteering steering = new SlotSteering(l, ScoringPolicy.BINPACK, LEVELS);
        Reservation r = l.reserve(new GangKey("d", "g"), "q", 0, List.of(new Ledger.Placement("a1", req("4", "1Gi"), "")),
                new Domain(1, "rack", "z/a"));

        assertThat(steering.bestCandidate(r, List.of("b1", "bare"), req("4", "1Gi"))).isNull();
        assertThat(steering.bestCandidate(r, List.of("b1", "a2"), req("4", "1Gi"))).isEqualTo("a2");
        assertThat(steering.claim(r, "pod-1", "", req("4", "1Gi"), "b1")).isNull();
        assertThat(r.slots()).singleElement().extracting(Slot::node).isEqualTo("a1");
        assertThat(steering.relocationTarget(r, "a1", req("4", "1Gi"))).isEqualTo("a2");
        assertThat(steering.claim(r, "pod-1", "", req("4", "1Gi"), "a2")).isNotNull();
        assertThat(r.slots()).singleElement().extracting(Slot::node).isEqualTo("a2");
    }

    @Test
    void withoutARequiredDomainEveryNodeWithRoomIsATarget() {
        Ledger l = ledger();
        SlotSteering steering = new SlotSteering(l, ScoringPolicy.BINPACK, LEVELS);
        Reservation r = l.reserve(new GangKey("d", "g"), "q", 0, List.of(new Ledger.Placement("a1", req("4", "1Gi"), "")));
        assertThat(steering.bestCandidate(r, List.of("bare"), req("4", "1Gi"))).isEqualTo("bare");
        assertThat(steering.claim(r, "pod-1", "", req("4", "1Gi"), "b1")).isNotNull();
    }

    @Test
    void domainsArePathsSoEqualRackNamesInOtherZonesDiffer() {
        assertThat(LEVELS.domainOf(Map.of("zone", "z1", "rack", "r1"), 1)).isEqualTo("z1/r1");
        assertThat(LEVELS.domainOf(Map.of("zone", "z2", "rack", "r1"), 1)).isEqualTo("z2/r1");
        assertThat(LEVELS.domainOf(Map.of("rack", "r1"), 1)).isEqualTo("/r1");
        assertThat(LEVELS.domainOf(Map.of("zone", "z1"), 1)).isNull();
        assertThat(LEVELS.select(Map.of("zone", "z1", "beta.kubernetes.io/os", "linux"))).isEqualTo(Map.of("zone", "z1"));
    }
}
