package dev.muster.demo.scenario;

import java.util.Objects;

/** {@code count} single pods (no PodGroup, so no queue) named {@code <name>-<i>} in {@code namespace}. Immutable. */
public record PodWorkload(String name, String namespace, int count, PodShape shape, DurationRange duration, Arrival arrival,
                          int priority) {
    public PodWorkload {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
    }
}
