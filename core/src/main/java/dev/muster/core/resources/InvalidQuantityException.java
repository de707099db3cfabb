package dev.muster.core.resources;

/** A quantity string that is not a Kubernetes quantity; the message names the problem. */
public final class InvalidQuantityException extends IllegalArgumentException {
    public InvalidQuantityException(String message) {
        super(message);
    }
}
