package dev.muster.core.model;

import dev.muster.core.resources.Resources;
import java.util.Objects;

/**
 * What the core knows of a pod: identity, effective request, gang membership and where it runs.
 *
 * @param id              uid, namespace, name
 * @param resourceVersion the API resourceVersion it was read at ("" when unknown)
 * @param request         effective request (see {@link dev.muster.core.resources.PodRequests})
 * @param gang            the PodGroup it belongs to, or null for a single pod
 * @param task            the Volcano task name ({@code volcano.sh/task-spec}), or "" when none
 * @param priority        spec.priority
 * @param nodeName        spec.nodeName, or null while unbound
 * @param phase           the pod's phase
 * @param membershipConflict why the pod's gang membership cannot be decided (it names two different groups), or ""
 *                        when there is no conflict; such a pod has no gang and is refused at filter with this text
 *                        ({@link GangMembership.Membership})
 * @param schedulerName   spec.schedulerName as the cluster shows it, or "" where no cluster says (a pod read from a verb's
 *                        request, tests); the verbs act only on pods whose cluster object names Muster's profile
 * @param terminating     the cluster shows it being deleted (metadata.deletionTimestamp set): never bound again
 * @param neverPreempts   {@code spec.preemptionPolicy} is {@code Never} (its PriorityClass says so): it never takes
 *                        anyone's room
 * @param graceSeconds    {@code spec.terminationGracePeriodSeconds}: how long it may take to go once evicted
 * @param constraints     where its spec lets it run (node selector, required node affinity, tolerations) and whether
 *                        scheduling gates hold it back ({@link NodeConstraints#NONE} when none)
 * @param nominatedNodeName {@code status.nominatedNodeName}: the node kube-scheduler's preemption freed room on for it
 *                        and will try first, or "" when none
 */
public record Pod(PodId id, String resourceVersion, Resources request, GangKey gang, String task, int priority,
                  String nodeName, PodPhase phase, String membershipConflict, String schedulerName, boolean terminating,
                  boolean neverPreempts, long graceSeconds, NodeConstraints constraints, String nominatedNodeName) {
    /** Kubernetes' default {@code terminationGracePeriodSeconds}. */
    public static final long DEFAULT_GRACE_SECONDS = 30;

    public Pod {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(request, "request");
        resourceVersion = resourceVersion == null ? "" : resourceVersion;
        task = task == null ? "" : task;
        phase = phase == null ? PodPhase.PENDING : phase;
        membershipConflict = membershipConflict == null ? "" : membershipConflict;
        schedulerName = schedulerName == null ? "" : schedulerName;
        constraints = constraints == null ? NodeConstraints.NONE : constraints;
        nominatedNodeName = nominatedNodeName == null ? "" : nominatedNodeName;
        if (graceSeconds < 0) {
            throw new IllegalArgumentException("pod " + id + ": terminationGracePeriodSeconds must not be negative, got " + graceSeconds);
        }
    }

    /** A pod that may preempt, with the default grace period. */
    public Pod(PodId id, String resourceVersion, Resources request, GangKey gang, String task, int priority,
               String nodeName, PodPhase phase, String membershipConflict, String schedulerName, boolean terminating) {
        this(id, resourceVersion, request, gang, task, priority, nodeName, phase, membershipConflict, schedulerName, terminating,
                false, DEFAULT_GRACE_SECONDS, NodeConstraints.NONE, "");
    }

    /** A pod no cluster object has described yet (its scheduler unknown, not terminating). */
    public Pod(PodId id, String resourceVersion, Resources request, GangKey gang, String task, int priority,
               String nodeName, PodPhase phase, String membershipConflict) {
        this(id, resourceVersion, request, gang, task, priority, nodeName, phase, membershipConflict, "", false);
    }

    /** A pod without a membership conflict. */
    public Pod(PodId id, String resourceVersion, Resources request, GangKey gang, String task, int priority,
               String nodeName, PodPhase phase) {
        this(id, resourceVersion, request, gang, task, priority, nodeName, phase, "", "", false);
    }

    /** True when the pod names two different groups (see {@link #membershipConflict()}). */
    public boolean hasMembershipConflict() {
        return !membershipConflict.isEmpty();
    }

    public String uid() {
        return id.uid();
    }

    public boolean isBound() {
        return nodeName != null && !nodeName.isEmpty();
    }

    /** Holds resources on its node: bound and not finished. */
    public boolean holdsResources() {
        return isBound() && !phase.isTerminal();
    }

    public Pod withNode(String node) {
        return new Pod(id, resourceVersion, request, gang, task, priority, node, phase, membershipConflict, schedulerName, terminating, neverPreempts, graceSeconds, constraints, nominatedNodeName);
    }

    public Pod withPhase(PodPhase p) {
        return new Pod(id, resourceVersion, request, gang, task, priority, nodeName, p, membershipConflict, schedulerName, terminating, neverPreempts, graceSeconds, constraints, nominatedNodeName);
    }

    /** The same pod as its cluster object describes it: {@code spec.schedulerName} and whether it is being deleted. */
    public Pod asInCluster(String scheduler, boolean beingDeleted) {
        return new Pod(id, resourceVersion, request, gang, task, priority, nodeName, phase, membershipConflict, scheduler, beingDeleted, neverPreempts, graceSeconds, constraints, nominatedNodeName);
    }

    /** The same pod with its preemption terms: {@code spec.preemptionPolicy} Never, and its grace period. */
    public Pod withPreemption(boolean never, long grace) {
        return new Pod(id, resourceVersion, request, gang, task, priority, nodeName, phase, membershipConflict, schedulerName, terminating,
                never, grace, constraints, nominatedNodeName);
    }

    /** A pod without constraints, with its preemption terms (as {@link #withPreemption}). */
    public Pod(PodId id, String resourceVersion, Resources request, GangKey gang, String task, int priority,
               String nodeName, PodPhase phase, String membershipConflict, String schedulerName, boolean terminating,
               boolean neverPreempts, long graceSeconds) {
        this(id, resourceVersion, request, gang, task, priority, nodeName, phase, membershipConflict, schedulerName, terminating,
                neverPreempts, graceSeconds, NodeConstraints.NONE, "");
    }

    /** The same pod with the node constraints and scheduling gates of its spec. */
    public Pod withConstraints(NodeConstraints c) {
        return new Pod(id, resourceVersion, request, gang, task, priority, nodeName, phase, membershipConflict, schedulerName, terminating,
                neverPreempts, graceSeconds, c, nominatedNodeName);
    }

    /** Whether kube-scheduler nominated a node for it ({@link #nominatedNodeName()}). */
    public boolean nominated() {
        return !nominatedNodeName.isEmpty();
    }

    /** The same pod with {@code status.nominatedNodeName} ({@code null} or "" for none). */
    public Pod withNomination(String node) {
        return new Pod(id, resourceVersion, request, gang, task, priority, nodeName, phase, membershipConflict, schedulerName, terminating,
                neverPreempts, graceSeconds, constraints, node);
    }
}
