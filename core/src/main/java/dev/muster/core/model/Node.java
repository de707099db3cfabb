package dev.muster.core.model;

import dev.muster.core.resources.Resources;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A node as the ledger needs it: name, allocatable, whether new pods may be placed on it ({@code !spec.unschedulable}),
 * its labels (topology levels and pods' node selectors and affinity read them; {@link #interned} shares their strings
 * between nodes), its {@code NoSchedule} / {@code NoExecute} taints, and whether it carries a {@code PreferNoSchedule}
 * taint. A node that is not Ready carries the node lifecycle controller's {@code node.kubernetes.io/not-ready} (or
 * {@code unreachable}) {@code NoSchedule} taint, which is how kube-scheduler keeps pods off it too.
 *
 * @param taints           its {@code NoSchedule} and {@code NoExecute} taints (kube-scheduler's TaintToleration filter)
 * @param preferNoSchedule the node has a taint with effect {@code PreferNoSchedule}: kube-scheduler's TaintToleration
 *                         score ranks it below untainted nodes, and so does the node Muster picks for a single pod
 */
public record Node(String name, Resources allocatable, boolean schedulable, Map<String, String> labels, List<NodeTaint> taints,
                   boolean preferNoSchedule) {
    public Node {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(allocatable, "allocatable");
        labels = labels == null || labels.isEmpty() ? Map.of() : Map.copyOf(labels);
        taints = taints == null || taints.isEmpty() ? List.of() : List.copyOf(taints);
    }

    /** A node without {@code NoSchedule} / {@code NoExecute} taints. */
    public Node(String name, Resources allocatable, boolean schedulable, Map<String, String> labels, boolean preferNoSchedule) {
        this(name, allocatable, schedulable, labels, List.of(), preferNoSchedule);
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

    /** The same node with these labels. */
    public Node withLabels(Map<String, String> newLabels) {
        return new Node(name, allocatable, schedulable, newLabels, taints, preferNoSchedule);
    }

    /**
     * The same node with its label keys and values, and its taints' strings, taken from the JVM's string pool: 5,000
     * nodes share one copy of each key and of each common value (zone, instance type), and the ledger keeps one small
     * map per node.
     */
    public Node interned() {
        Map<String, String> pooled = new java.util.HashMap<>(labels.size() * 2);
        labels.forEach((k, v) -> pooled.put(k.intern(), v.intern()));
        List<NodeTaint> pooledTaints = new java.util.ArrayList<>(taints.size());
        for (NodeTaint t : taints) {
            pooledTaints.add(new NodeTaint(t.key().intern(), t.value().intern(), t.effect().intern()));
        }
        return new Node(name, allocatable, schedulable, pooled, pooledTaints, preferNoSchedule);
    }
}
