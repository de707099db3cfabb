package dev.muster.demo.report;

import dev.muster.core.model.Refusal;

/**
 * Groups the extender's reasons for a gang not starting into kinds a person recognises. Every structured cause has a
 * named kind: there is no catch-all.
 */
public enum ReasonCategory {
    QUEUE_CAPABILITY("queue capability reached"),
    NOT_ENOUGH_RESOURCES("not enough free resources"),
    IN_LINE("waiting its turn behind a queue further below its fair share"),
    WAITING_FOR_MEMBERS("waiting for its pods to exist"),
    QUEUE_NOT_OPEN("queue closed or missing"),
    PODGROUP_UNRESOLVED("its PodGroup's Workload not found"),
    BACKING_OFF("backing off after a failed try"),
    DEADLINE_PASSED("reservation expired before its pods came"),
    BIND_FAILED("a member's bind failed"),
    NOTE("held room, no refusal");

    private final String label;

    ReasonCategory(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The category of the extender's structured refusal cause (no text matching). */
    public static ReasonCategory of(Refusal.Cause cause) {
        return switch (cause) {
            case QUEUE_CAPABILITY, QUEUE_FULL -> QUEUE_CAPABILITY;
            case QUEUE_CLOSED, QUEUE_MISSING -> QUEUE_NOT_OPEN;
            case MEMBERS_MISSING, TASK_MEMBERS_MISSING, PODGROUP_MISSING -> WAITING_FOR_MEMBERS;
            case PODGROUP_UNRESOLVED -> PODGROUP_UNRESOLVED;
            case RESOURCES, NODES_OVERCOMMITTED, NO_SLOT, RESERVATION_LOST, TOPOLOGY -> NOT_ENOUGH_RESOURCES;
            case IN_LINE -> IN_LINE;
            case BACKING_OFF -> BACKING_OFF;
            case DEADLINE_PASSED -> DEADLINE_PASSED;
            case BIND_FAILED -> BIND_FAILED;
            case NONE -> NOTE;
        };
    }
}
