package dev.muster.controller.writer;

import java.time.Duration;

/** A status write that did not happen. The writer retries it with per-object backoff. */
public final class StatusPatchException extends Exception {
    /** Why, as far as the writer (and metrics) care. */
    public enum Kind {
        /** 409: should not happen with a merge patch without resourceVersion, but retried if it does. */
        CONFLICT,
        /** 429: the API server asks us to slow down (Retry-After honoured). */
        THROTTLED,
        /** 5xx. */
        SERVER_ERROR,
        /** No answer in time. */
        TIMEOUT,
        /** 404: the object (or the path) is gone; usually the deletion is about to be observed. */
        NOT_FOUND,
        /** Other 4xx: forbidden, invalid. Retried slowly: RBAC or a CRD may be fixed without restarting us. */
        REJECTED,
        /** Connection refused, reset, TLS: the request did not get an answer. */
        TRANSPORT;

        public static Kind ofHttpStatus(int code) {
            return switch (code) {
                case 404 -> NOT_FOUND;
                case 408, 504 -> TIMEOUT;
                case 409 -> CONFLICT;
                case 429 -> THROTTLED;
                default -> code >= 500 ? SERVER_ERROR : code >= 400 ? REJECTED : TRANSPORT;
            };
        }
    }

    private final Kind kind;
    private final int httpStatus;
    private final Duration retryAfter;

    public StatusPatchException(Kind kind, int httpStatus, Duration retryAfter, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.httpStatus = httpStatus;
        this.retryAfter = retryAfter;
    }

    public StatusPatchException(Kind kind, int httpStatus, String message) {
        this(kind, httpStatus, null, message, null);
    }

    public Kind kind() {
        return kind;
    }

    /** The HTTP status, or 0 when there was no answer. */
    public int httpStatus() {
        return httpStatus;
    }

    /** The server's Retry-After, or null. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
