package dev.muster.demo.report;

import dev.muster.core.model.GangKey;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Listens to the same allocation stream as the controller and remembers what it says about gangs: which
 * reservations expired (and how often), and why gangs could not be admitted. A snapshot (sent only when the
 * reader fell out of the extender's window) carries states, not history; it is counted, so the report can say
 * the counts may be incomplete. Thread-safe: {@code this} guards every field.
 */
public final class StreamRecorder implements AllocationListener {
    private long events;
    private long snapshots;
    private long expiredEvents;
    private final Set<GangKey> expiredGangs = new HashSet<>();
    private final Set<GangKey> reservedGangs = new HashSet<>();
    private final Map<GangKey, ReasonCategory> waitedFor = new HashMap<>();

    @Override
    public synchronized void onSnapshot(AllocationSnapshot snapshot) {
        snapshots++;
    }

    @Override
    public synchronized void onEvent(SequencedEvent event) {
        events++;
        if (event.event() instanceof AllocationEvent.GangChanged g) {
            switch (g.state()) {
                case EXPIRED -> {
                    expiredEvents++;
                    expiredGangs.add(g.gang());
                }
                case RESERVED -> reservedGangs.add(g.gang());
                case UNSCHEDULABLE, WAITING -> {
                    if (!g.reason().isEmpty()) {
                        waitedFor.putIfAbsent(g.gang(), ReasonCategory.of(g.why().cause()));
                    }
                }
                default -> { }
            }
        }
    }

    /**
     * @param expiredEvents         reservations that expired at the deadline
     * @param expiredGangs          distinct gangs with at least one expired reservation
     * @param reservedGangs         distinct gangs that held a reservation
     * @param firstWaitReason       distinct gangs by the first reason they were given for waiting
     */
    public record Summary(long events, long snapshots, long expiredEvents, int expiredGangs, int reservedGangs,
                          Map<ReasonCategory, Integer> firstWaitReason) {}

    public synchronized Summary summary() {
        Map<ReasonCategory, Integer> byReason = new EnumMap<>(ReasonCategory.class);
        waitedFor.values().forEach(c -> byReason.merge(c, 1, Integer::sum));
        return new Summary(events, snapshots, expiredEvents, expiredGangs.size(), reservedGangs.size(), Map.copyOf(byReason));
    }

    /** For the progress line: reservations currently known to have expired. */
    public synchronized long expiredEvents() {
        return expiredEvents;
    }
}
