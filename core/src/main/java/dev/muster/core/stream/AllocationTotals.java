package dev.muster.core.stream;

import dev.muster.core.model.GangState;
import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import java.util.HashMap;
import java.util.Map;

/**
 * The fold of allocation events into per-queue allocated totals and per-gang latest state. This is the
 * one definition of "what the events add up to": the journal keeps one to cut snapshots, the controller
 * keeps one as it applies the stream.
 *
 * <p>Not thread-safe: its owner confines it (the journal under its lock, the controller under its own).
 */
public final class AllocationTotals {
    private final Map<String, Resources> allocatedByQueue = new HashMap<>();
    private final Map<GangKey, AllocationSnapshot.GangStatus> gangs = new HashMap<>();
    private final Map<String, AllocationEvent.QueueShareChanged> shares = new HashMap<>();

    public void apply(AllocationEvent event) {
        switch (event) {
            case AllocationEvent.PodAllocated a -> allocatedByQueue.merge(a.queue(), a.resources(), Resources::plus);
            case AllocationEvent.PodReleased r -> {
                Resources left = allocatedByQueue.getOrDefault(r.queue(), Resources.ZERO).minus(r.resources());
                if (left.isZero()) {
                    allocatedByQueue.remove(r.queue());
                } else {
                    allocatedByQueue.put(r.queue(), left);
                }
            }
            case AllocationEvent.QueueShareChanged q -> shares.put(q.queue(), q);
            case AllocationEvent.PreemptionDecided p -> {
                // a decision moves no capacity: the victims' releases and the preemptor's allocations follow as their own events
            }
            case AllocationEvent.GangChanged g -> {
                if (g.state() == GangState.DELETED) {
                    gangs.remove(g.gang());
                } else {
                    gangs.put(g.gang(), new AllocationSnapshot.GangStatus(g.queue(), g.state(), g.why()));
                }
            }
        }
    }

    /** Replaces everything with the content of {@code snapshot}. */
    public void reset(AllocationSnapshot snapshot) {
        allocatedByQueue.clear();
        allocatedByQueue.putAll(snapshot.allocatedByQueue());
        gangs.clear();
        gangs.putAll(snapshot.gangs());
        shares.clear();
        shares.putAll(snapshot.shares());
    }

    /** The queue's latest fair share, or null when none was reported. */
    public AllocationEvent.QueueShareChanged share(String queue) {
        return shares.get(queue);
    }

    public Resources allocated(String queue) {
        return allocatedByQueue.getOrDefault(queue, Resources.ZERO);
    }

    public AllocationSnapshot.GangStatus gang(GangKey key) {
        return gangs.get(key);
    }

    public AllocationSnapshot snapshot(long sequence) {
        return new AllocationSnapshot(sequence, allocatedByQueue, gangs, shares);
    }
}
