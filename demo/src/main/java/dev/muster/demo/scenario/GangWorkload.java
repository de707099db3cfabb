package dev.muster.demo.scenario;

import java.util.Objects;

/**
 * {@code count} gangs (PodGroups named {@code <name>-<i>} in {@code namespace}) of {@code size} pods each, in
 * {@code queue}; all members of one gang share one pod shape and one run time. {@code api} is the gang API the
 * PodGroups are written in (scenario key {@code api:}, default {@code volcano}). Immutable.
 */
public record GangWorkload(String name, String namespace, String queue, int count, Range size, MinMember minMember, PodShape shape,
                           DurationRange duration, Arrival arrival, int priority, dev.muster.core.model.GangApi api) {
    public GangWorkload {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(queue, "queue");
        api = api == null ? dev.muster.core.model.GangApi.VOLCANO : api;
    }

    /** Volcano PodGroups. */
    public GangWorkload(String name, String namespace, String queue, int count, Range size, MinMember minMember, PodShape shape,
                        DurationRange duration, Arrival arrival, int priority) {
        this(name, namespace, queue, count, size, minMember, shape, duration, arrival, priority, null);
    }
}
