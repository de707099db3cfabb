package dev.muster.demo.report;

import dev.muster.core.model.Refusal;

/** Groups the extender's reasons for a gang not starting into a few kinds a person recognises. */
public enum ReasonCategory {
    QUEUE_CAPABILITY("queue capability reached"),
    NOT_ENOUGH_RESOURCES("not enough free resources"),
    WAITING_FOR_MEMBERS("waiting for its pods to exist"),
    QUEUE_NOT_OPEN("queue closed or missing"),
    OTHER("other");

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
            case PODGROUP_UNRESOLVED -> OTHER;
            case RESOURCES, NODES_OVERCOMMITTED, NO_SLOT, RESERVATION_LOST, TOPOLOGY -> NOT_ENOUGH_RESOURCES;
            case NONE, BACKING_OFF, DEADLINE_PASSED, BIND_FAILED, IN_LINE -> OTHER;
        };
    }
}
