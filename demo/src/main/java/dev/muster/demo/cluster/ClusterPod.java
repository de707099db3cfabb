package dev.muster.demo.cluster;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.PodRequests;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A pod as the embedded API server stores it. Immutable; every change is a new value with a higher
 * {@code resourceVersion}. Times are simulated nanoseconds since the scenario started ({@code -1}: not yet).
 *
 * @param requests        the single container's requests (cpu, memory, extended resources)
 * @param gang            the PodGroup named by the pod's {@code scheduling.k8s.io/group-name} annotation, or null
 * @param runFor          how long its container runs once started (the workload's behaviour, not part of a
 *                        real pod's spec); null runs until deleted
 * @param createdAt       {@code metadata.creationTimestamp}
 * @param boundAt         when {@code spec.nodeName} was set (the PodScheduled condition)
 * @param startedAt       {@code status.startTime} (phase Running)
 * @param finishedAt      when the container finished (phase Succeeded or Failed)
 */
public record ClusterPod(PodId id, long resourceVersion, Resources requests, GangKey gang, String schedulerName, int priority,
                         Duration runFor, String nodeName, PodPhase phase, long createdAt, long boundAt, long startedAt,
                         long finishedAt) {
    public ClusterPod {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(requests, "requests");
        Objects.requireNonNull(phase, "phase");
        schedulerName = schedulerName == null ? "" : schedulerName;
    }

    /** A new pod: pending, unbound. */
    public static ClusterPod created(PodId id, Resources requests, GangKey gang, String schedulerName, int priority, Duration runFor,
                                     long createdAt) {
        return new ClusterPod(id, 0, requests, gang, schedulerName, priority, runFor, null, PodPhase.PENDING, createdAt, -1, -1, -1);
    }

    public String uid() {
        return id.uid();
    }

    public boolean isBound() {
        return nodeName != null;
    }

    /** Bound and not finished: it holds its request on its node. */
    public boolean holdsResources() {
        return isBound() && !phase.isTerminal();
    }

    /** Not bound and not finished: a scheduler should place it. */
    public boolean isPending() {
        return !isBound() && !phase.isTerminal();
    }

    /** The effective request, by kube-scheduler's rule (one container, no init containers, no overhead). */
    public Resources request() {
        return PodRequests.effective(List.of(PodRequests.Container.of(requests)), List.of(), null, null);
    }

    /** What the scheduling core is told of this pod. */
    public Pod toCorePod() {
        return new Pod(id, Long.toString(resourceVersion), request(), gang, "", priority, nodeName, phase);
    }

    ClusterPod withBinding(long version, String node, long at) {
        return new ClusterPod(id, version, requests, gang, schedulerName, priority, runFor, node, phase, createdAt, at, startedAt, finishedAt);
    }

    ClusterPod withPhase(long version, PodPhase p, long at) {
        return new ClusterPod(id, version, requests, gang, schedulerName, priority, runFor, nodeName, p, createdAt, boundAt,
                p == PodPhase.RUNNING ? at : startedAt, p.isTerminal() ? at : finishedAt);
    }

    ClusterPod withVersion(long version) {
        return new ClusterPod(id, version, requests, gang, schedulerName, priority, runFor, nodeName, phase, createdAt, boundAt, startedAt,
                finishedAt);
    }
}
