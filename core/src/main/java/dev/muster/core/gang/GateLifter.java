package dev.muster.core.gang;

import dev.muster.core.model.PodId;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Port: lifts Muster's scheduling gate ({@link QueueGate#NAME}) from a pod. In production one JSON patch of the pod that
 * tests the gate is still where it was read and removes that entry alone, adding {@code annotations} in the same write.
 * Implementations retry conflicts and transient failures themselves, must not block the calling thread, and are called
 * with no lock held.
 */
public interface GateLifter {
    /**
     * Removes Muster's gate from {@code pod} and adds {@code annotations}. Completes with null once the pod carries the
     * gate no more (lifted now, or already gone), else with the reason it is still there; never exceptionally.
     */
    CompletionStage<String> lift(PodId pod, Map<String, String> annotations);

    /**
     * Whether lifts may be made now: this process leads (a standby lifts nothing). Read under the scheduling core's
     * lock: answer from memory.
     */
    default boolean ready() {
        return true;
    }

    /** Lifts nothing: every lift fails saying so. */
    GateLifter NONE = (pod, annotations) -> CompletableFuture.completedFuture("no gate lifter is configured");
}
