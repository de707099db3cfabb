package dev.muster.core.model;

/** Kubernetes pod phases. */
public enum PodPhase {
    PENDING("Pending"), RUNNING("Running"), SUCCEEDED("Succeeded"), FAILED("Failed"), UNKNOWN("Unknown");

    private final String wire;

    PodPhase(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    public boolean isTerminal() {
        return this == SUCCEEDED || this == FAILED;
    }

    /** Parses the API's phase string; unknown or missing strings are PENDING. */
    public static PodPhase parse(String s) {
        if (s == null) {
            return PENDING;
        }
        for (PodPhase p : values()) {
            if (p.wire.equals(s)) {
                return p;
            }
        }
        return PENDING;
    }
}
