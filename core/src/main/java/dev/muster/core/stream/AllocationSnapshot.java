package dev.muster.core.stream;

import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import java.util.Map;

/**
 * The folded state of the stream up to and including {@code sequence}: per queue the sum of resources
 * allocated to its pods (pods outside any gang under the queue name ""), and per gang its latest state.
 * Immutable.
 */
public record AllocationSnapshot(long sequence, Map<String, Resources> allocatedByQueue, Map<GangKey, GangStatus> gangs,
                                 Map<String, AllocationEvent.QueueShareChanged> shares) {
    public AllocationSnapshot {
        allocatedByQueue = Map.copyOf(allocatedByQueue);
        gangs = Map.copyOf(gangs);
        shares = Map.copyOf(shares);
    }

    /** A snapshot without queue shares. */
    public AllocationSnapshot(long sequence, Map<String, Resources> allocatedByQueue, Map<GangKey, GangStatus> gangs) {
        this(sequence, allocatedByQueue, gangs, Map.of());
    }

    /** A gang's latest state in a snapshot. */
    public record GangStatus(String queue, GangState state, Refusal why) {
        public GangStatus {
            why = why == null ? Refusal.NONE : why;
        }

        public String reason() {
            return why.text();
        }
    }
}
