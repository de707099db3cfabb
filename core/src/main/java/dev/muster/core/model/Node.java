package dev.muster.core.model;

import dev.muster.core.resources.Resources;
import java.util.Map;
import java.util.Objects;

/**
 * A node as the ledger needs it: name, allocatable, whether new pods may be placed on it, and its topology labels —
 * only the labels of the configured topology levels (see {@code dev.muster.core.ledger.TopologyLevels}), so a
 * 5,000-node ledger keeps a handful of strings per node, not every label the node carries.
 */
public record Node(String name, Resources allocatable, boolean schedulable, Map<String, String> labels) {
    public Node {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(allocatable, "allocatable");
        labels = labels == null || labels.isEmpty() ? Map.of() : Map.copyOf(labels);
    }

    /** A node without topology labels. */
    public Node(String name, Resources allocatable, boolean schedulable) {
        this(name, allocatable, schedulable, Map.of());
    }

    public static Node of(String name, Resources allocatable) {
        return new Node(name, allocatable, true);
    }

    /** The same node with these topology labels. */
    public Node withLabels(Map<String, String> topologyLabels) {
        return new Node(name, allocatable, schedulable, topologyLabels);
    }
}
