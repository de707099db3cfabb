package dev.muster.demo.scenario;

import java.util.Objects;

/**
 * {@code count} gangs (PodGroups named {@code <name>-<i>} in {@code namespace}) of {@code size} pods each, in
 * {@code queue}; all members of one gang share one pod shape and one run time. Immutable.
 */
public record GangWorkload(String name, String namespace, String queue, int count, Range size, MinMember minMember, PodShape shape,
                           DurationRange duration, Arrival arrival, int priority) {
    public GangWorkload {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(queue, "queue");
    }
}
