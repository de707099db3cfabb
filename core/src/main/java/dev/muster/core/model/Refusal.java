package dev.muster.core.model;

import java.util.Objects;

/**
 * What a gang's state says about why it is not going ahead, as data: a {@link Cause} that code branches on
 * (admission, PodGroup condition reasons, metrics) and the sentence a person reads in {@code kubectl describe}.
 * The text is rendered once, where the facts are known; nobody parses it. {@link #NONE} (cause NONE) carries
 * a note for states that refuse nothing ("3 slots held for 60s"). Immutable.
 */
public record Refusal(Cause cause, String text) {
    public static final Refusal NONE = new Refusal(Cause.NONE, "");

    /** Why, in the terms a gang scheduler's user thinks in. */
    public enum Cause {
        /** Nothing is refused (the text, if any, is a note). */
        NONE,
        /** Pods name a PodGroup that muster has not seen. */
        PODGROUP_MISSING,
        /**
         * The PodGroup refers to something muster cannot find (a Kubernetes PodGroup's Workload or its template): the
         * gang is not planned until the reference resolves.
         */
        PODGROUP_UNRESOLVED,
        /** Fewer than minMember pods exist. */
        MEMBERS_MISSING,
        /** A task has fewer pods than its minTaskMember. */
        TASK_MEMBERS_MISSING,
        /** The whole gang does not fit on capacity that is free and not reserved by other gangs. */
        RESOURCES,
        /** As RESOURCES, and nodes that would otherwise take members are overcommitted (pods use more than allocatable). */
        NODES_OVERCOMMITTED,
        /**
         * The gang's required topology constraint cannot be met: no single domain of the level has room for it
         * (although the cluster as a whole may), or the level is not configured.
         */
        TOPOLOGY,
        /**
         * Not the gang's turn: a queue further below its fair share has gangs waiting; the next admission pass takes
         * the line in order.
         */
        IN_LINE,
        /** The gang's queue does not exist. */
        QUEUE_MISSING,
        /** The gang's queue is Closed or Closing. */
        QUEUE_CLOSED,
        /** The gang alone needs more than its queue's capability: it can never be admitted as the queue stands. */
        QUEUE_CAPABILITY,
        /** The queue's capability is taken by its other gangs and pods for now. */
        QUEUE_FULL,
        /** The gang failed recently and waits before it is planned again. */
        BACKING_OFF,
        /** None of kube-scheduler's candidate nodes holds a slot of the gang and none has room to move one. */
        NO_SLOT,
        /** The reservation's deadline passed before minMember members were bound or waiting. */
        DEADLINE_PASSED,
        /** Pods muster did not place took a reserved node and no other node had room for the slot. */
        RESERVATION_LOST,
        /** The barrier opened but a member's Binding failed (typically: the pod was deleted meanwhile). */
        BIND_FAILED;

        /** True for causes about the gang's queue rather than the cluster's capacity. */
        public boolean aboutQueue() {
            return this == QUEUE_MISSING || this == QUEUE_CLOSED || this == QUEUE_CAPABILITY || this == QUEUE_FULL;
        }

        /** True when fewer pods exist than the gang needs (overall or for a task). */
        public boolean aboutMembers() {
            return this == MEMBERS_MISSING || this == TASK_MEMBERS_MISSING || this == BIND_FAILED;
        }
    }

    public Refusal {
        Objects.requireNonNull(cause, "cause");
        text = text == null ? "" : text;
    }

    public static Refusal of(Cause cause, String text) {
        return new Refusal(cause, text);
    }

    /** A note for a state that refuses nothing. */
    public static Refusal note(String text) {
        return text == null || text.isEmpty() ? NONE : new Refusal(Cause.NONE, text);
    }

    /** The same cause, its text prefixed (e.g. with the gang's name). */
    public Refusal prefixed(String prefix) {
        return new Refusal(cause, prefix + text);
    }

    /** The same cause, {@code suffix} appended to its text. */
    public Refusal suffixed(String suffix) {
        return suffix.isEmpty() ? this : new Refusal(cause, text + suffix);
    }

    @Override
    public String toString() {
        return text;
    }
}
