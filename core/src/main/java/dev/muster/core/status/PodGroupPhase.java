package dev.muster.core.status;

/** Volcano PodGroup phases, with their API spelling. */
public enum PodGroupPhase {
    PENDING("Pending"), INQUEUE("Inqueue"), RUNNING("Running"), UNKNOWN("Unknown"), COMPLETED("Completed");

    private final String wire;

    PodGroupPhase(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** Parses the API's phase string; null when missing or not a phase Volcano defines. */
    public static PodGroupPhase parse(String s) {
        if (s == null) {
            return null;
        }
        for (PodGroupPhase p : values()) {
            if (p.wire.equals(s)) {
                return p;
            }
        }
        return null;
    }
}
