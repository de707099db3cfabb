package dev.muster.core.scheduler;

/**
 * A verb about a pod Muster may not act on (not seen in the cluster, another scheduler's, bound elsewhere, being
 * deleted): nothing changed. The message says why; adapters answer the caller with it as an error.
 */
public final class VerbRefusedException extends RuntimeException {
    public VerbRefusedException(String message) {
        super(message, null, false, false);
    }
}
