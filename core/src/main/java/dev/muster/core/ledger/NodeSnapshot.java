package dev.muster.core.ledger;

import dev.muster.core.resources.Resources;

/** An immutable copy of one node's accounting, safe to hand out of the lock. */
public record NodeSnapshot(String name, Resources allocatable, Resources used, Resources reserved, int pods,
                           boolean known, boolean schedulable, boolean overcommitted) {}
