package dev.muster.core.preempt;

/** What an eviction came to. */
public sealed interface EvictionOutcome {
    /** The API server accepted the eviction: the pod is being deleted (its grace period runs). */
    record Evicted() implements EvictionOutcome {}

    /** The pod no longer exists (404): its room is free or about to be. */
    record Gone() implements EvictionOutcome {}

    /** A PodDisruptionBudget refused it (429): {@code message} is the API server's. */
    record RefusedByBudget(String message) implements EvictionOutcome {}

    /** Any other failure (forbidden, the API server unreachable, ...): {@code message} says what. */
    record Failed(String message) implements EvictionOutcome {}
}
