package dev.muster.core.model;

import dev.muster.core.resources.Resources;
import java.util.Objects;

/** A node as the ledger needs it: name, allocatable, and whether new pods may be placed on it. */
public record Node(String name, Resources allocatable, boolean schedulable) {
    public Node {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(allocatable, "allocatable");
    }

    public static Node of(String name, Resources allocatable) {
        return new Node(name, allocatable, true);
    }
}
