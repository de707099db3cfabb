package dev.muster.server.http.wire;

/**
 * A request body that is not a valid kube-scheduler extender message. The message names the problem
 * and, where it can, the JSON path of the offending value, e.g.
 * {@code Pod.spec.containers[0].resources.requests.cpu: quantity "abc" does not start with a number}
 * or {@code missing "Pod"}. The HTTP layer answers it with a 4xx carrying this message.
 *
 * <p>The decoders throw no other exception type for bad input.
 */
public final class WireFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public WireFormatException(String message) {
        super(message);
    }

    public WireFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
