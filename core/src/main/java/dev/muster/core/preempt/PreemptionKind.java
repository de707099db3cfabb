package dev.muster.core.preempt;

/** Why a gang takes room from others: its priority, or its queue's fair share. */
public enum PreemptionKind {
    /** Room of strictly lower priority in the preemptor's own queue (and of lower-priority single pods). */
    PRIORITY("priority"),
    /** Room a queue above its fair share borrowed, taken back by a queue below its own. */
    RECLAIM("reclaim");

    private final String label;

    PreemptionKind(String label) {
        this.label = label;
    }

    /** The word metrics and the stream use. */
    public String label() {
        return label;
    }
}
