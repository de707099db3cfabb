package dev.muster.core.preempt;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.resources.Resources;

/**
 * One pod a preemption evicts: the gang it belongs to (null for a single pod), the queue charged for it ("" for a
 * single pod), its priority, and the room it frees.
 */
public record Victim(PodId pod, GangKey gang, String queue, int priority, String node, Resources resources) {}
