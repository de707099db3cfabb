package dev.muster.core.model;

import dev.muster.core.resources.Resources;
import java.util.Map;
import java.util.Objects;

/**
 * A node as the ledger needs it: name, allocatable, whether new pods may be placed on it, its topology labels —
 * only the labels of the configured topology levels (see {@code dev.muster.core.ledger.TopologyLevels}), so a
 * 5,000-node ledger keeps a handful of strings per node, not every label the node carries — and whether it carries a
 * {@code PreferNoSchedule} taint.
 *
 * @param preferNoSchedule the node has a taint with effect {@code PreferNoSchedule}: kube-scheduler's TaintToleration
 *                         score ranks it below untainted nodes, and so does the node Muster picks for a single pod
 */
public record Node(String name, Resources allocatable, boolean schedulable, Map<String, String> labels, boolean preferNoSchedule) {
    public Node {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(allocatable, "allocatable");
        labels = labels == null || labels.isEmpty() ? Map.of() : Map.copyOf(labels);
    }

    /** A node without a {@code PreferNoSchedule} taint. */
    public Node(String name, Resources allocatable, boolean schedulable, Map<String, String> labels) {
        this(name, allocatable, schedulable, labels, false);
    }

    /** A node without topology labels or taints. */
    public Node(String name, Resources allocatable, boolean schedulable) {
        this(name, allocatable, schedulable, Map.of());
    }

    public static Node of(String name, Resources allocatable) {
        return new Node(name, allocatable, true);
    }

    /** The same node with these topology labels. */
    public Node withLabels(Map<String, String> topologyLabels) {
        return new Node(name, allocatable, schedulable, topologyLabels, preferNoSchedule);
    }
}
