package dev.muster.server.http.wire;

/**
 * A request body that is not a valid kube-scheduler extender message. The message names the problem
 * and, where it can, the JSON path of the offending value, e.g.
 * {@code Pod.spec.containers[0].resources.requests.cpu: quantity "abc" does not start with a number}
 * or {@code missing "Pod"}. The HTTP layer answers it with a 4xx carrying this message.
 *
 * <p>The decoders throw no other exception type for bad input. {@link #aboutPod()} marks a well-formed message whose
 * pod asks for something Muster cannot read (a quantity out of range): kube-scheduler sent what the API server
 * accepted, so the answer is the extender's {@code Error} field, which kube-scheduler puts on the pod's
 * FailedScheduling event — an HTTP error status would show there only as its code.
 */
public final class WireFormatException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final boolean aboutPod;

    public WireFormatException(String message) {
        this(message, null, false);
    }

    public WireFormatException(String message, Throwable cause) {
        this(message, cause, false);
    }

    private WireFormatException(String message, Throwable cause, boolean aboutPod) {
        super(message, cause);
        this.aboutPod = aboutPod;
    }

    /** The same problem, marked as one of the pod's own content (see the class comment). */
    public static WireFormatException aboutPod(WireFormatException e) {
        return new WireFormatException(e.getMessage(), e.getCause(), true);
    }

    public boolean aboutPod() {
        return aboutPod;
    }
}
