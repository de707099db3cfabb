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

    /**
     * Records {@code decision} where the next leader can read it ({@link #records}), replacing the record of the same
     * preemptor. Completes with null once it is stored, else with the reason it is not (then nothing is evicted for it).
     * Never exceptionally; never blocks. By default nothing is stored (a single process has no next leader).
     */
    default CompletionStage<String> record(PreemptionRecord decision) {
        return java.util.concurrent.CompletableFuture.completedFuture(null);
    }

    /** Deletes the record of {@code decision} (only if the stored one has its id): the decision ended. Never blocks. */
    default void forget(PreemptionRecord decision) {
    }

    /**
     * The decisions recorded by this or an earlier leader and not forgotten. May complete exceptionally when they cannot
     * be read now (the caller asks again later). Never blocks.
     */
    default CompletionStage<java.util.List<PreemptionRecord>> records() {
        return java.util.concurrent.CompletableFuture.completedFuture(java.util.List.of());
    }

    /** Evicts nothing: every eviction fails saying preemption has no evictor. */
    Evictor NONE = (pod, why) -> java.util.concurrent.CompletableFuture.completedFuture(
            new EvictionOutcome.Failed("no evictor is configured"));
}
