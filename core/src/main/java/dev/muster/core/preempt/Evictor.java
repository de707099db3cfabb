package dev.muster.core.preempt;

import dev.muster.core.model.PodId;
import java.util.concurrent.CompletionStage;

/**
 * Port: evicts a victim pod the way Kubernetes does (in production a {@code policy/v1} Eviction POST to
 * {@code /api/v1/namespaces/{ns}/pods/{name}/eviction}, so PodDisruptionBudgets hold). Completes with the outcome; never
 * exceptionally. Implementations must not block the calling thread; they are called with no lock held.
 */
public interface Evictor {
    /** Evicts {@code pod}; {@code why} is the sentence that says for whom (it goes to the pod's events). */
    CompletionStage<EvictionOutcome> evict(PodId pod, String why);

    /**
     * Evicts {@code pod} as a dry run: completes with the outcome the real eviction would have now (PodDisruptionBudgets
     * asked), evicting nothing. In production the same POST with {@code dryRun=All}. Never exceptionally; never blocks.
     * By default every check passes.
     */
    default CompletionStage<EvictionOutcome> check(PodId pod) {
        return java.util.concurrent.CompletableFuture.completedFuture(new EvictionOutcome.Evicted());
    }

    /**
     * Whether evictions may be made now: this process leads (a standby decides nothing and evicts nothing). Read under
     * the scheduling core's lock: answer from memory.
     */
    default boolean ready() {
        return true;
    }

    /** Evicts nothing: every eviction fails saying preemption has no evictor. */
    Evictor NONE = (pod, why) -> java.util.concurrent.CompletableFuture.completedFuture(
            new EvictionOutcome.Failed("no evictor is configured"));
}
