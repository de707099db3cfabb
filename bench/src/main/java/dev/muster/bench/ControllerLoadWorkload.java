package dev.muster.bench;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.PodObservation;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.model.GangState;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Synthetic gang lifecycles for {@link ControllerLoad}, in simulated time. Gangs of 2–6 pods (4 on average) are
 * created at a steady rate and live long enough that {@code alive} PodGroups exist at once:
 *
 * <pre>
 *   +0     PodGroup and its pods created (Pending)
 *   +0.5 s 10% UNSCHEDULABLE (not enough resources), then admitted at +1.5 s; the rest ADMITTED
 *   +1 s   RESERVED (+2 s for the unschedulable ones)
 *   +2 s   every member allocated and bound, gang BOUND (+3 s)
 *   +4 s   members Running
 *   L-1 s  members Succeeded, allocations released
 *   L      members and PodGroup deleted, gang DELETED
 * </pre>
 * with L = alive / (gangs per second). Each step is an event for a {@link Sink}. Deterministic for a seed.
 * Not thread-safe.
 */
final class ControllerLoadWorkload {
    static final String NS = "load";
    private static final long SECOND = 1_000_000_000L;

    /** Where the workload's observations and stream events go. */
    interface Sink {
        void queue(QueueSpec spec);

        void podGroup(PodGroupSpec spec);

        void podGroupDeleted(GangKey key);

        void pod(PodObservation pod);

        void podDeleted(String uid);

        /** One allocation-stream event, at simulated time {@code nanos}. */
        void stream(AllocationEvent event, long nanos);
    }

    private enum Step { CREATE, UNSCHEDULABLE, ADMIT, RESERVE, BIND, RUN, FINISH, DELETE }

    private record Scheduled(long at, long order, Gang gang, Step step) implements Comparable<Scheduled> {
        @Override
        public int compareTo(Scheduled o) {
            int c = Long.compare(at, o.at);
            return c != 0 ? c : Long.compare(order, o.order);
        }
    }

    private static final class Gang {
        final GangKey key;
        final String queue;
        final int size;
        final boolean unschedulableFirst;

        Gang(GangKey key, String queue, int size, boolean unschedulableFirst) {
            this.key = key;
            this.queue = queue;
            this.size = size;
            this.unschedulableFirst = unschedulableFirst;
        }

        String pod(int i) {
            return key.name() + "-" + i;
        }
    }

    private static final Resources POD = Resources.ofPod(500, 1L << 30);

    private final int queues;
    private final long gangIntervalNanos;
    private final long lifetimeNanos;
    private final SplittableRandom random;
    private final PriorityQueue<Scheduled> agenda = new PriorityQueue<>();
    private long order;
    private long nextGangAt;
    private long gangsCreated;
    private long podsCreated;
    private long events;

    ControllerLoadWorkload(long podsPerMinute, int queues, int alive, long seed) {
        this.queues = queues;
        double gangsPerSecond = podsPerMinute / 60.0 / 4.0;
        this.gangIntervalNanos = Math.max(1, (long) (SECOND / gangsPerSecond));
        this.lifetimeNanos = (long) (alive / gangsPerSecond * SECOND);
        if (lifetimeNanos < 6 * SECOND) {
            throw new IllegalArgumentException("gangs would live " + lifetimeNanos / SECOND + " s: lower --alive or the rate");
        }
        this.random = new SplittableRandom(seed);
    }

    long lifetimeSeconds() {
        return lifetimeNanos / SECOND;
    }

    void createQueues(Sink sink) {
        for (int q = 0; q < queues; q++) {
            sink.queue(QueueSpec.open("q" + q, null));
        }
    }

    /** Emits every step due at or before {@code until} (simulated nanoseconds), in time order. */
    void runUntil(long until, Sink sink) {
        while (nextGangAt <= until) {
            int size = 2 + random.nextInt(5);
            Gang g = new Gang(new GangKey(NS, "g" + gangsCreated), "q" + random.nextInt(queues), size, random.nextInt(10) == 0);
            gangsCreated++;
            podsCreated += size;
            schedule(nextGangAt, g, Step.CREATE);
            nextGangAt += gangIntervalNanos;
        }
        Scheduled s;
        while ((s = agenda.peek()) != null && s.at <= until) {
            agenda.poll();
            apply(s, sink);
        }
    }

    private void schedule(long at, Gang g, Step step) {
        agenda.add(new Scheduled(at, order++, g, step));
    }

    private void apply(Scheduled s, Sink sink) {
        Gang g = s.gang;
        long t = s.at;
        long shift = g.unschedulableFirst ? SECOND : 0;
        switch (s.step) {
            case CREATE -> {
                sink.podGroup(PodGroupSpec.of(g.key, g.size, g.queue));
                events++;
                for (int i = 0; i < g.size; i++) {
                    sink.pod(new PodObservation(g.pod(i), g.key, PodPhase.PENDING, false));
                    events++;
                }
                schedule(t + SECOND / 2, g, g.unschedulableFirst ? Step.UNSCHEDULABLE : Step.ADMIT);
            }
            case UNSCHEDULABLE -> {
                gang(sink, g, GangState.UNSCHEDULABLE, "needs " + g.size + "×(500m cpu, 1Gi), fits " + (g.size - 1), t);
                schedule(t + SECOND, g, Step.ADMIT);
            }
            case ADMIT -> {
                gang(sink, g, GangState.ADMITTED, "", t);
                schedule(t + SECOND / 2, g, Step.RESERVE);
            }
            case RESERVE -> {
                gang(sink, g, GangState.RESERVED, "", t);
                schedule(t + SECOND, g, Step.BIND);
            }
            case BIND -> {
                for (int i = 0; i < g.size; i++) {
                    sink.stream(new AllocationEvent.PodAllocated(podId(g, i), g.key, g.queue, "node-" + random.nextInt(1000), POD), t);
                    sink.pod(new PodObservation(g.pod(i), g.key, PodPhase.PENDING, true));
                    events += 2;
                }
                gang(sink, g, GangState.BOUND, "", t);
                schedule(t + 2 * SECOND, g, Step.RUN);
            }
            case RUN -> {
                for (int i = 0; i < g.size; i++) {
                    sink.pod(new PodObservation(g.pod(i), g.key, PodPhase.RUNNING, true));
                    events++;
                }
                schedule(t - 4 * SECOND - shift + lifetimeNanos - SECOND, g, Step.FINISH);
            }
            case FINISH -> {
                for (int i = 0; i < g.size; i++) {
                    sink.pod(new PodObservation(g.pod(i), g.key, PodPhase.SUCCEEDED, true));
                    sink.stream(new AllocationEvent.PodReleased(podId(g, i), g.key, g.queue, "node", POD), t);
                    events += 2;
                }
                schedule(t + SECOND, g, Step.DELETE);
            }
            case DELETE -> {
                for (int i = 0; i < g.size; i++) {
                    sink.podDeleted(g.pod(i));
                    events++;
                }
                sink.podGroupDeleted(g.key);
                gang(sink, g, GangState.DELETED, "", t);
                events++;
            }
        }
    }

    private void gang(Sink sink, Gang g, GangState state, String reason, long t) {
        sink.stream(new AllocationEvent.GangChanged(g.key, g.queue, state, reason), t);
        events++;
    }

    private static PodId podId(Gang g, int i) {
        return new PodId(g.pod(i), NS, g.pod(i));
    }

    long gangsCreated() {
        return gangsCreated;
    }

    long podsCreated() {
        return podsCreated;
    }

    /** Observations and stream events emitted so far. */
    long events() {
        return events;
    }
}
