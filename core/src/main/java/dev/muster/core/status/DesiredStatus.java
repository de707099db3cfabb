package dev.muster.core.status;

/** The status an object should have: immutable, compared with {@code equals} to decide whether to write. */
public sealed interface DesiredStatus permits QueueStatus, PodGroupStatus {}
