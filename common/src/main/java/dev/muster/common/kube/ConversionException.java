package dev.muster.common.kube;

/**
 * An API object that cannot be translated into the core model (a nonsense quantity, a negative minMember, a missing
 * uid). The message names the object and the field, e.g.
 * {@code pod team-a/worker-0: container "main" requests cpu: quantity "lots" does not start with a number}.
 */
public final class ConversionException extends RuntimeException {
    public ConversionException(String message) {
        super(message);
    }

    public ConversionException(String message, Throwable cause) {
        super(message, cause);
    }
}
