package dev.muster.core.model;

import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A PodGroup's spec, as the planner uses it, whichever gang API it was written in ({@link GangApi}).
 *
 * @param minMember         pods that must start together
 * @param minTaskMember     per task name, how many of that task must be among them
 * @param minResources      must fit in the queue and the cluster's free capacity before the gang is planned (Volcano
 *                          enqueue); ZERO when unset
 * @param queue             queue name ("default" when absent)
 * @param priorityClassName may be ""
 * @param deadline          per-gang reservation deadline override, or null for the configured default
 * @param api               the API the PodGroup was written in
 * @param topology          where the members must (or should) land together, or null for anywhere
 * @param unresolved        why the spec cannot be used as it stands, or "" — the PodGroup refers to something the adapter
 *                          cannot find (a Kubernetes PodGroup's Workload template) or asks for what Muster does not do
 *                          (a group of groups); such a gang is never admitted (refused with
 *                          {@link Refusal.Cause#PODGROUP_UNRESOLVED}) until an update resolves it
 * @param preemption        its priority, preemption policy and disruption mode ({@link PreemptionTerms#DEFAULT} when the
 *                          API has none)
 */
public record PodGroupSpec(GangKey key, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                           String queue, String priorityClassName, Duration deadline, GangApi api, TopologyRequest topology,
                           String unresolved, PreemptionTerms preemption) {
    public static final String DEFAULT_QUEUE = "default";

    public PodGroupSpec {
        Objects.requireNonNull(key, "key");
        if (minMember < 0) {
            throw new IllegalArgumentException("podgroup " + key + ": minMember must not be negative, got " + minMember);
        }
        minTaskMember = minTaskMember == null ? Map.of() : Map.copyOf(minTaskMember);
        minResources = minResources == null ? Resources.ZERO : minResources;
        queue = queue == null || queue.isEmpty() ? DEFAULT_QUEUE : queue;
        priorityClassName = priorityClassName == null ? "" : priorityClassName;
        api = api == null ? GangApi.VOLCANO : api;
        unresolved = unresolved == null ? "" : unresolved;
        preemption = preemption == null ? PreemptionTerms.DEFAULT : preemption;
    }

    /** With the default preemption terms. */
    public PodGroupSpec(GangKey key, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                        String queue, String priorityClassName, Duration deadline, GangApi api, TopologyRequest topology,
                        String unresolved) {
        this(key, minMember, minTaskMember, minResources, queue, priorityClassName, deadline, api, topology, unresolved,
                PreemptionTerms.DEFAULT);
    }

    /** A resolved spec. */
    public PodGroupSpec(GangKey key, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                        String queue, String priorityClassName, Duration deadline, GangApi api, TopologyRequest topology) {
        this(key, minMember, minTaskMember, minResources, queue, priorityClassName, deadline, api, topology, "");
    }

    /** True when the spec cannot be used as it stands (see {@link #unresolved()}). */
    public boolean isUnresolved() {
        return !unresolved.isEmpty();
    }

    /** A Volcano PodGroup without a topology constraint. */
    public PodGroupSpec(GangKey key, int minMember, Map<String, Integer> minTaskMember, Resources minResources,
                        String queue, String priorityClassName, Duration deadline) {
        this(key, minMember, minTaskMember, minResources, queue, priorityClassName, deadline, GangApi.VOLCANO, null);
    }

    public static PodGroupSpec of(GangKey key, int minMember, String queue) {
        return new PodGroupSpec(key, minMember, Map.of(), Resources.ZERO, queue, "", null);
    }
}
