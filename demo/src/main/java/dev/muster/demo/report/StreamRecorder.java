package dev.muster.demo.report;

import dev.muster.core.model.GangKey;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.function.LongSupplier;
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
    /** A preemption decision, heard at simulated time {@code at}: who is evicted ({@code victims}) for whom ({@code preemptor}). */
    public record Preemption(long at, GangKey preemptor, String queue, int priority, PreemptionKind kind, List<Victim> victims, int nodes) {
        public Preemption {
            victims = List.copyOf(victims);
        }
    }

    private final LongSupplier clock;
    private final List<Preemption> preemptions = new ArrayList<>();
    private long events;
    private long snapshots;
    private long expiredEvents;
    private final Set<GangKey> expiredGangs = new HashSet<>();
    private final Set<GangKey> reservedGangs = new HashSet<>();
    private final Map<GangKey, ReasonCategory> waitedFor = new HashMap<>();

    /** A recorder that stamps preemptions with time 0 (for runs that do not preempt). */
    public StreamRecorder() {
        this(() -> 0);
    }

    /** @param clock simulated nanoseconds, to stamp preemption decisions as they are heard */
    public StreamRecorder(LongSupplier clock) {
        this.clock = java.util.Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized void onSnapshot(AllocationSnapshot snapshot) {
        snapshots++;
    }

    @Override
    public synchronized void onEvent(SequencedEvent event) {
        events++;
        if (event.event() instanceof AllocationEvent.PreemptionDecided d) {
            preemptions.add(new Preemption(clock.getAsLong(), d.preemptor(), d.queue(), d.priority(), d.kind(), d.victims(), d.nodes()));
        }
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
     * @param preemptions           the preemption decisions, in order
     */
    public record Summary(long events, long snapshots, long expiredEvents, int expiredGangs, int reservedGangs,
                          Map<ReasonCategory, Integer> firstWaitReason, List<Preemption> preemptions) {
        public Summary {
            preemptions = List.copyOf(preemptions);
        }

        public Summary(long events, long snapshots, long expiredEvents, int expiredGangs, int reservedGangs,
                       Map<ReasonCategory, Integer> firstWaitReason) {
            this(events, snapshots, expiredEvents, expiredGangs, reservedGangs, firstWaitReason, List.of());
        }
    }

    public synchronized Summary summary() {
        Map<ReasonCategory, Integer> byReason = new EnumMap<>(ReasonCategory.class);
        waitedFor.values().forEach(c -> byReason.merge(c, 1, Integer::sum));
        return new Summary(events, snapshots, expiredEvents, expiredGangs.size(), reservedGangs.size(), Map.copyOf(byReason), preemptions);
    }

    /** For the progress line: reservations currently known to have expired. */
    public synchronized long expiredEvents() {
        return expiredEvents;
    }
}
