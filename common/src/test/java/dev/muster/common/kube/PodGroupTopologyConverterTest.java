package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.podGroup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.GangMembership;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.model.TopologyRequest.Mode;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Topology constraints on Volcano PodGroups: Muster's annotation and Volcano's spec.networkTopology. */
class PodGroupTopologyConverterTest {

    static Stream<Arguments> accepted() {
        return Stream.of(
                Arguments.of("no constraint", null, "{}", null),
                Arguments.of("bare label key is required", "example.com/rack", "{}", TopologyRequest.byKey(Mode.REQUIRED, "example.com/rack")),
                Arguments.of("required:key", "required:topology.kubernetes.io/zone", "{}", TopologyRequest.byKey(Mode.REQUIRED, "topology.kubernetes.io/zone")),
                Arguments.of("preferred:key with spaces", " preferred: rack ", "{}", TopologyRequest.byKey(Mode.PREFERRED, "rack")),
                Arguments.of("networkTopology hard tier 2", null, "{\"networkTopology\": {\"mode\": \"hard\", \"highestTierAllowed\": 2}}",
                        TopologyRequest.byTier(Mode.REQUIRED, 2)),
                Arguments.of("networkTopology soft", null, "{\"networkTopology\": {\"mode\": \"soft\", \"highestTierAllowed\": 3}}",
                        TopologyRequest.byTier(Mode.PREFERRED, 3)),
                Arguments.of("networkTopology defaults: hard, tier 1", null, "{\"networkTopology\": {}}", TopologyRequest.byTier(Mode.REQUIRED, 1)),
                Arguments.of("networkTopology highestTierName is a level's label key", null,
                        "{\"networkTopology\": {\"highestTierName\": \"example.com/block\"}}", TopologyRequest.byKey(Mode.REQUIRED, "example.com/block")),
                Arguments.of("the annotation wins over networkTopology", "preferred:rack", "{\"networkTopology\": {\"highestTierAllowed\": 2}}",
                        TopologyRequest.byKey(Mode.PREFERRED, "rack")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("accepted")
    void converts(String name, String annotation, String spec, TopologyRequest expected) {
        VolcanoPodGroup pg = podGroup("ns", "pg", spec);
        if (annotation != null) {
            pg.getMetadata().putAnnotationsItem(GangMembership.TOPOLOGY_ANNOTATION, annotation);
        }
        assertThat(PodGroupConverter.toCore(pg).topology()).isEqualTo(expected);
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("unknown mode prefix", "must:rack", "{}",
                        "podgroup ns/pg annotation muster.dev/topology \"must:rack\": expected required:<label key>, preferred:<label key> or <label key>"),
                Arguments.of("empty key", "required:", "{}", "\"\" is not a node label key (it is empty)"),
                Arguments.of("not a label key", "rack level", "{}", "\"rack level\" is not a node label key"),
                Arguments.of("networkTopology mode", null, "{\"networkTopology\": {\"mode\": \"strict\"}}",
                        "podgroup ns/pg spec.networkTopology: mode must be hard or soft, got \"strict\""),
                Arguments.of("networkTopology tier 0", null, "{\"networkTopology\": {\"highestTierAllowed\": 0}}", "highestTierAllowed must be at least 1, got 0"),
                Arguments.of("networkTopology both tier forms", null, "{\"networkTopology\": {\"highestTierAllowed\": 1, \"highestTierName\": \"rack\"}}",
                        "highestTierAllowed and highestTierName cannot both be set"),
                Arguments.of("networkTopology not an object", null, "{\"networkTopology\": \"rack\"}", "networkTopology: expected an object"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("rejected")
    void rejectsWithTheProblemNamed(String name, String annotation, String spec, String message) {
        VolcanoPodGroup pg = podGroup("ns", "pg", spec);
        if (annotation != null) {
            pg.getMetadata().putAnnotationsItem(GangMembership.TOPOLOGY_ANNOTATION, annotation);
        }
        assertThatThrownBy(() -> PodGroupConverter.toCore(pg)).isInstanceOf(ConversionException.class).hasMessageContaining(message);
    }
}
