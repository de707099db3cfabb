package dev.muster.demo.report;

import dev.muster.demo.cluster.EmbeddedCluster;

/** The embedded cluster's usage at simulated time {@code at} (nanoseconds). Immutable. */
public record Sample(long at, EmbeddedCluster.Usage usage) {}
