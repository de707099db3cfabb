package dev.muster.demo.report;

import dev.muster.core.queue.FairShare;
import java.util.Map;
import dev.muster.demo.cluster.ClusterUsage;

/**
 * The embedded cluster's usage at simulated time {@code at} (nanoseconds), and each queue's share as the extender's
 * last admission pass computed it (held, fair share, borrowed; empty when not sampled). Immutable.
 */
public record Sample(long at, ClusterUsage usage, Map<String, FairShare.Share> shares) {
    public Sample {
        shares = Map.copyOf(shares);
    }

    public Sample(long at, ClusterUsage usage) {
        this(at, usage, Map.of());
    }
}
