package dev.muster.server.sync;

import static dev.muster.common.kube.KubeObjects.node;
import static dev.muster.common.kube.KubeObjects.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.common.kube.ConversionException;
import dev.muster.core.model.Node;
import dev.muster.core.model.NodeTaint;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodeConverterTest {

    static Stream<Arguments> nodes() {
        return Stream.of(
                Arguments.of("allocatable, not capacity", node("n1").capacity("cpu=8,memory=32Gi,pods=110")
                        .allocatable("cpu=7800m,memory=30Gi,pods=110").build(), new Node("n1", res("cpu=7800m,memory=30Gi,pods=110"), true)),
                Arguments.of("extended resources", node("gpu1").allocatable("cpu=32,nvidia.com/gpu=8").build(),
                        new Node("gpu1", res("cpu=32,nvidia.com/gpu=8"), true)),
                Arguments.of("cordoned node is unschedulable", node("n2").allocatable("cpu=4").unschedulable(true).build(),
                        new Node("n2", res("cpu=4"), false)),
                Arguments.of("unschedulable false", node("n3").allocatable("cpu=4").unschedulable(false).build(),
                        new Node("n3", res("cpu=4"), true)),
                Arguments.of("labels travel",
                        new V1Node().metadata(new V1ObjectMeta().name("n5").putLabelsItem("example.com/rack", "r7")),
                        new Node("n5", Resources.ZERO, true, java.util.Map.of("example.com/rack", "r7"))),
                Arguments.of("a PreferNoSchedule taint is kept as a flag; other taints are kube-scheduler's filters",
                        new V1Node().metadata(new V1ObjectMeta().name("n6")).spec(new io.kubernetes.client.openapi.models.V1NodeSpec()
                                .addTaintsItem(new io.kubernetes.client.openapi.models.V1Taint().key("a").effect("PreferNoSchedule"))),
                        new Node("n6", Resources.ZERO, true, java.util.Map.of(), true)),
                Arguments.of("NoSchedule and NoExecute taints are kept with their values: pods that do not tolerate them stay off",
                        new V1Node().metadata(new V1ObjectMeta().name("n7")).spec(new io.kubernetes.client.openapi.models.V1NodeSpec()
                                .addTaintsItem(new io.kubernetes.client.openapi.models.V1Taint().key("a").value("x").effect("NoSchedule"))
                                .addTaintsItem(new io.kubernetes.client.openapi.models.V1Taint().key("b").effect("NoExecute"))),
                        new Node("n7", Resources.ZERO, true, java.util.Map.of(), java.util.List.of(
                                new NodeTaint("a", "x", NodeTaint.NO_SCHEDULE), new NodeTaint("b", "", NodeTaint.NO_EXECUTE)), false)),
                Arguments.of("no status: no room", new V1Node().metadata(new V1ObjectMeta().name("n4")), new Node("n4", Resources.ZERO, true)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("nodes")
    void converts(String name, V1Node node, Node expected) {
        assertThat(NodeConverter.toCore(node)).isEqualTo(expected);
    }

    static Stream<Arguments> invalid() {
        V1Node negative = node("n1").allocatable("cpu=4").build();
        negative.getStatus().putAllocatableItem("memory", new Quantity("-1"));
        return Stream.of(
                Arguments.of("negative allocatable", negative, "node n1 status.allocatable: memory"),
                Arguments.of("no name", new V1Node(), "node without metadata.name"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidNodes(String name, V1Node node, String message) {
        assertThatThrownBy(() -> NodeConverter.toCore(node)).isInstanceOf(ConversionException.class).hasMessageContaining(message);
    }
}
