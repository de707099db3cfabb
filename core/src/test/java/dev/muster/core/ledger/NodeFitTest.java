package dev.muster.core.ledger;

import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.Node;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Whether a node accepts a request: the fit rule every filter and plan uses. */
class NodeFitTest {

    static Stream<Arguments> cases() {
        Node n8 = Node.of("n", req("8", "32Gi").with(3, 110));
        return Stream.of(
                Arguments.of("empty node fits", n8, List.of(), Resources.ZERO, req("4", "16Gi"), true, false),
                Arguments.of("exactly full still fits", n8, List.of(req("4", "16Gi")), Resources.ZERO, req("4", "16Gi"), true, false),
                Arguments.of("one millicore too many", n8, List.of(req("4", "16Gi")), Resources.ZERO, req("4001m", "1Gi"), false, false),
                Arguments.of("memory short", n8, List.of(req("1", "31Gi")), Resources.ZERO, req("1", "2Gi"), false, false),
                Arguments.of("reserved capacity is not free", n8, List.of(), req("6", "1Gi"), req("4", "1Gi"), false, false),
                Arguments.of("extended resource absent on node", n8, List.of(), Resources.ZERO, req("1", "1Gi", "nvidia.com/gpu", "1"), false, false),
                Arguments.of("pod count limit", Node.of("n", req("64", "256Gi").with(3, 2)), List.of(req("1", "1Gi"), req("1", "1Gi")), Resources.ZERO,
                        req("1", "1Gi"), false, false),
                Arguments.of("overcommitted node takes nothing", n8, List.of(req("9", "1Gi")), Resources.ZERO, req("1m", "1"), false, true),
                Arguments.of("unschedulable node takes nothing", new Node("n", req("8", "32Gi").with(3, 110), false), List.of(), Resources.ZERO,
                        req("1", "1Gi"), false, false));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void accepts(String name, Node node, List<Resources> running, Resources reserved, Resources request, boolean fits, boolean overcommitted) {
        Ledger ledger = new Ledger();
        ledger.upsertNode(node);
        int i = 0;
        for (Resources r : running) {
            ledger.putPod(new PodRecord(new PodId("p" + i, "d", "p" + i++), "n", r, null, "", false));
        }
        if (!reserved.isZero()) {
            ledger.reserve(new dev.muster.core.model.GangKey("d", "other"), "q", 0, List.of(new Ledger.Placement("n", reserved, "")));
        }
        NodeEntry e = ledger.node("n");
        assertThat(e.accepts(request)).isEqualTo(fits);
        assertThat(e.overcommitted()).isEqualTo(overcommitted);
        assertThat(ledger.checkInvariants()).isEmpty();
    }
}
