package dev.muster.controller.writer;

import java.util.function.LongSupplier;
import dev.muster.core.status.StatusKey;

/**
 * The controller's dirty-set lanes: Queues (tens) in one, PodGroups (thousands) in the other. The writer takes
 * from them in turn, so under a short write budget every Queue still gets written within about
 * {@code 2 × queues / --api-qps} seconds instead of waiting behind every dirty PodGroup; a lane with nothing
 * ready leaves the whole budget to the other.
 */
public final class StatusLanes {
    private StatusLanes() {}

    public static DirtySet<StatusKey> dirtySet(LongSupplier ticker) {
        return new DirtySet<>(ticker, 2, key -> key instanceof StatusKey.Queue ? 0 : 1);
    }
}
