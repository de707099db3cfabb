package dev.muster.core.model;

/** Volcano Queue states. Only OPEN admits new gangs. */
public enum QueueState {
    OPEN("Open"), CLOSED("Closed"), CLOSING("Closing"), UNKNOWN("Unknown");

    private final String wire;

    QueueState(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public static QueueState parse(String s) {
        if (s == null || s.isEmpty()) {
            return OPEN;
        }
        for (QueueState q : values()) {
            if (q.wire.equalsIgnoreCase(s)) {
                return q;
            }
        }
        return UNKNOWN;
    }
}
