package dev.muster.server.bind;

/** A bind that did not and will not succeed; the message says why in words a person reads in {@code kubectl describe}. */
public final class BindException extends RuntimeException {
    public BindException(String message) {
        super(message);
    }

    public BindException(String message, Throwable cause) {
        super(message, cause);
    }
}
