package dev.muster.core.scheduler;

/**
 * A verb about a pod Muster may not act on (not seen in the cluster, another scheduler's, bound elsewhere, being
 * deleted): nothing changed. The message says why; adapters answer the caller with it as an error, counted by
 * {@link #cause()}.
 */
public final class VerbRefusedException extends RuntimeException {
    /** Why a verb was refused, as adapters count it (metric label: {@link #label()}). */
    public enum Cause {
        /** The informers have not shown a pod of that uid (or show that uid under another name). */
        NOT_SEEN("not_seen"),
        /** The pod is of another scheduler profile. */
        OTHER_SCHEDULER("other_scheduler"),
        /** The cluster shows the pod bound already. */
        BOUND("bound"),
        /** The pod is being deleted. */
        TERMINATING("terminating"),
        /**
         * This leader has not yet read the preemption decisions an earlier leader recorded: nothing is admitted until
         * it has ({@link dev.muster.core.gang.AdmissionHold}); the caller waits for that and filters again.
         */
        HANDOVER("handover"),
        /** Any other reason the message names. */
        REFUSED("refused");

        private final String label;

        Cause(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    private final Cause cause;

    /** Refused for a reason counted as {@link Cause#REFUSED}. */
    public VerbRefusedException(String message) {
        this(Cause.REFUSED, message);
    }

    public VerbRefusedException(Cause cause, String message) {
        super(message, null, false, false);
        this.cause = java.util.Objects.requireNonNull(cause, "cause");
    }

    public Cause cause() {
        return cause;
    }
}
