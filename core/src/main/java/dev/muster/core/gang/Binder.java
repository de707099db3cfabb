package dev.muster.core.gang;

import dev.muster.core.model.PodId;
import java.util.concurrent.CompletionStage;

/**
 * Port: makes a binding real (in production a {@code v1 Binding} POST to
 * {@code /api/v1/namespaces/{ns}/pods/{name}/binding}). Completes normally when the pod is bound to
 * {@code node}; exceptionally with a readable message otherwise. Implementations retry transient
 * failures themselves and must not block the calling thread.
 */
public interface Binder {
    CompletionStage<Void> bind(PodId pod, String node);
}
