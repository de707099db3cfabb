package dev.muster.demo.cluster;

/** An API call the embedded cluster refuses, with the status a real API server would answer and its message. */
public final class ClusterException extends RuntimeException {
    /** The HTTP status a Kubernetes API server would send. */
    public enum Reason {
        NOT_FOUND(404), ALREADY_EXISTS(409), CONFLICT(409), INVALID(422);

        private final int httpStatus;

        Reason(int httpStatus) {
            this.httpStatus = httpStatus;
        }

        public int httpStatus() {
            return httpStatus;
        }
    }

    private final Reason reason;

    public ClusterException(Reason reason, String message) {
        super(message, null, false, false);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
