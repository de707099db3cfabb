package dev.muster.server.sync;

import dev.muster.common.kube.ConversionException;
import dev.muster.common.kube.NodeConstraintsConverter;
import dev.muster.common.kube.ResourceLists;
import dev.muster.common.kube.SlimNodeJson;
import dev.muster.core.model.Node;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.openapi.models.V1Node;
import java.util.Map;

/**
 * {@link V1Node} → core {@link Node}: name, {@code status.allocatable} (what kube-scheduler fits against; a node
 * without it has no room), {@code !spec.unschedulable} (cordoned nodes take no new pods), whether it has a
 * {@code PreferNoSchedule} taint (picked last for single pods), its {@code NoSchedule} / {@code NoExecute} taints (pods
 * that do not tolerate them never go there) and its labels (topology levels, node selectors and affinity read them).
 * Stateless and thread-safe.
 */
public final class NodeConverter {
    private NodeConverter() {}

    /**
     * Converts {@code node}.
     *
     * @throws ConversionException naming the node when it has no name or an invalid allocatable quantity
     */
    public static Node toCore(V1Node node) {
        String name = nameOf(node);
        Resources allocatable = node.getStatus() == null ? Resources.ZERO
                : ResourceLists.fromQuantities(() -> "node " + name + " status.allocatable", node.getStatus().getAllocatable());
        boolean unschedulable = node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        Map<String, String> labels = node.getMetadata().getLabels();
        boolean preferNoSchedule = node.getSpec() != null && node.getSpec().getTaints() != null
                && node.getSpec().getTaints().stream().anyMatch(t -> SlimNodeJson.PREFER_NO_SCHEDULE.equals(t.getEffect()));
        return new Node(name, allocatable, !unschedulable, labels == null ? Map.of() : labels,
                NodeConstraintsConverter.filteringTaints(node.getSpec() == null ? null : node.getSpec().getTaints()), preferNoSchedule);
    }

    /**
     * The node's name.
     *
     * @throws ConversionException when metadata.name is missing
     */
    public static String nameOf(V1Node node) {
        if (node.getMetadata() == null || node.getMetadata().getName() == null || node.getMetadata().getName().isEmpty()) {
            throw new ConversionException("node without metadata.name");
        }
        return node.getMetadata().getName();
    }
}
