package dev.muster.demo.scenario;

import dev.muster.core.resources.Resources;
import java.util.Objects;

/** {@code count} identical nodes. Immutable. */
public record NodeGroup(String group, int count, Resources allocatable) {
    public NodeGroup {
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(allocatable, "allocatable");
    }
}
