package dev.muster.core.model;

/** Whether a gang may preempt others of lower priority (Kubernetes' {@code preemptionPolicy}). */
public enum PreemptionPolicy {
    PREEMPT_LOWER_PRIORITY("PreemptLowerPriority"),
    NEVER("Never");

    private final String wire;

    PreemptionPolicy(String wire) {
        this.wire = wire;
    }

    /** The API's spelling. */
    public String wire() {
        return wire;
    }

    /** The policy spelled {@code text} as the API spells it, or null when it is none. */
    public static PreemptionPolicy parse(String text) {
        for (PreemptionPolicy p : values()) {
            if (p.wire.equals(text)) {
                return p;
            }
        }
        return null;
    }
}
