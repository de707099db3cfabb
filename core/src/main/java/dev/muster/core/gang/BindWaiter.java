package dev.muster.core.gang;

import dev.muster.core.model.PodId;
import dev.muster.core.gang.BindResult;
import java.util.concurrent.CompletableFuture;

/**
 * A bind held at a gang's barrier: the pod, the node it asked for, and the future its caller waits on.
 * Completing the future is the only way the caller learns the outcome; it is completed outside the
 * scheduler's lock.
 */
public record BindWaiter(PodId pod, String node, CompletableFuture<BindResult> result) {}
