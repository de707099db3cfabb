package dev.muster.demo.fairness;

import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.Binder;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.PodRequests;
import dev.muster.core.resources.Resources;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.demo.scenario.NodeGroup;
import dev.muster.demo.scenario.Scenario;
import dev.muster.demo.scenario.WorkloadPlan;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Plays a main-format {@link Scenario} on the real scheduling core ({@link GangScheduler}: the line, the admission
 * pass, fair shares, set-aside, kept quota, planner, barrier) in simulated time, deterministically: the same scenario
 * gives the same run. It stands in for the demo's HTTP extender, controller and kube-scheduler with a discrete-event
 * loop — arrivals, finishes, the extender's tick (every 200 ms of real time at the scenario's speed, so as often in
 * simulated time as in the demo) — and, at every tick, a kube-scheduler round: every pending pod in priority then
 * arrival order is filtered (a gang member, the gang's first unbound member; once its gang holds a reservation, every
 * member is filtered and bound). Binds complete at once. Leaves out kube-scheduler's backoff, its own node-fit view
 * and held binds, so it shows what the scheduling rules do, not the waits a real kube-scheduler adds.
 * Single-threaded; one instance per run.
 */
public final class FairShareSimulation {
    /** Each queue's share (as the core computed it at its last pass) at one simulated moment. */
    public record Sample(long atNanos, Map<String, FairShare.Share> shares) {
        public Sample {
            shares = Map.copyOf(shares);
        }
    }

    /** What the run gives: the samples, the cluster's allocatable, and how many gangs and single pods started. */
    public record Run(List<Sample> samples, Resources allocatable, int gangsStarted, int gangs, int podsStarted, int pods, long endNanos,
                      List<String> invariantProblems) {
        public Run {
            samples = List.copyOf(samples);
            invariantProblems = List.copyOf(invariantProblems);
        }
    }

    private record Event(long at, long seq, int kind, Object subject) {
        static final int ARRIVE = 0;
        static final int FINISH = 1;
        static final int TICK = 2;
        static final int SAMPLE = 3;
    }

    /** A gang or single pod that has arrived and has not started yet. */
    private record Pending(long at, int priority, WorkloadPlan.Item item) {}

    private final Scenario scenario;
    private final GangScheduler scheduler;
    private final List<String> nodeNames = new ArrayList<>();
    private final Resources allocatable;
    private long now;
    private long seq;

    private FairShareSimulation(Scenario scenario) {
        this.scenario = scenario;
        Binder immediate = (PodId pod, String node) -> CompletableFuture.<Void>completedFuture(null);
        // the demo scales the set-aside wait to one simulated minute; here the core's clock is simulated time
        SchedulerConfig config = SchedulerConfig.DEFAULT.withGangDeadline(Duration.ofMinutes(10)).withSetAsideAfter(Duration.ofMinutes(1));
        scheduler = new GangScheduler(config, immediate, new AllocationJournal(1 << 12, InstantSource.fixed(Instant.EPOCH)), () -> now);
        Resources total = Resources.ZERO;
        int n = 0;
        for (NodeGroup g : scenario.nodes()) {
            for (int i = 0; i < g.count(); i++) {
                String name = "node-" + (++n);
                scheduler.upsertNode(Node.of(name, g.allocatable()));
                nodeNames.add(name);
                total = total.plus(g.allocatable());
            }
        }
        allocatable = total;
        for (QueueSpec q : scenario.queues()) {
            scheduler.upsertQueue(q);
        }
        scheduler.markSynced();
    }

    /** Plays {@code scenario} to the end (everything ran, or nothing can start any more). */
    public static Run run(Scenario scenario) {
        return new FairShareSimulation(scenario).play(WorkloadPlan.of(scenario));
    }

    private Run play(WorkloadPlan plan) {
        PriorityQueue<Event> events = new PriorityQueue<>(Comparator.comparingLong(Event::at).thenComparingLong(Event::seq));
        for (WorkloadPlan.Item item : plan.items()) {
            events.add(new Event(item.at(), seq++, Event.ARRIVE, item));
        }
        long tickEvery = (long) (200_000_000L * scenario.settings().speed());
        long sampleEvery = scenario.settings().sampleEvery().toNanos();
        events.add(new Event(0, seq++, Event.TICK, null));
        events.add(new Event(0, seq++, Event.SAMPLE, null));
        List<Pending> pending = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        int outstanding = plan.items().size(); // arrived or not, not yet finished
        int gangsStarted = 0;
        int podsStarted = 0;
        long idleTicks = 0;
        while (!events.isEmpty() && outstanding > 0) {
            Event e = events.poll();
            now = e.at();
            switch (e.kind()) {
                case Event.ARRIVE -> {
                    WorkloadPlan.Item item = (WorkloadPlan.Item) e.subject();
                    arrive(item);
                    pending.add(new Pending(item.at(), priorityOf(item), item));
                }
                case Event.FINISH -> {
                    finish((WorkloadPlan.Item) e.subject());
                    outstanding--;
                }
                case Event.TICK -> {
                    scheduler.expireDue(); // the admission pass
                    int before = pending.size();
                    for (int round = 0; round < 2; round++) {
                        pending.sort(Comparator.comparingInt(Pending::priority).reversed().thenComparingLong(Pending::at));
                        for (var it = pending.iterator(); it.hasNext(); ) {
                            Pending p = it.next();
                            long runFor = tryStart(p.item());
                            if (runFor >= 0) {
                                it.remove();
                                if (p.item() instanceof WorkloadPlan.GangArrival) {
                                    gangsStarted++;
                                } else {
                                    podsStarted++;
                                }
                                events.add(new Event(now + scenario.settings().podStartup().toNanos() + runFor, seq++, Event.FINISH, p.item()));
                            }
                        }
                    }
                    // nothing running, nothing arriving, nothing starting: what is left can never start
                    idleTicks = pending.size() == before && events.stream().noneMatch(x -> x.kind() <= Event.FINISH) ? idleTicks + 1 : 0;
                    if (idleTicks > 3) {
                        outstanding = 0;
                    }
                    events.add(new Event(now + tickEvery, seq++, Event.TICK, null));
                }
                default -> {
                    samples.add(new Sample(now, scheduler.stats().queueShares()));
                    events.add(new Event(now + sampleEvery, seq++, Event.SAMPLE, null));
                }
            }
        }
        return new Run(samples, allocatable, gangsStarted, plan.gangCount(), podsStarted, plan.items().size() - plan.gangCount(), now,
                scheduler.checkInvariants());
    }

    private static int priorityOf(WorkloadPlan.Item item) {
        return switch (item) {
            case WorkloadPlan.GangArrival g -> g.pods().stream().mapToInt(WorkloadPlan.PlannedPod::priority).max().orElse(0);
            case WorkloadPlan.PodArrival p -> p.pod().priority();
        };
    }

    private void arrive(WorkloadPlan.Item item) {
        switch (item) {
            case WorkloadPlan.GangArrival g -> {
                scheduler.upsertPodGroup(g.podGroup());
                for (WorkloadPlan.PlannedPod p : g.pods()) {
                    scheduler.upsertPod(pod(p, g.podGroup().key(), null, PodPhase.PENDING));
                }
            }
            case WorkloadPlan.PodArrival p -> scheduler.upsertPod(pod(p.pod(), null, null, PodPhase.PENDING));
        }
    }

    private void finish(WorkloadPlan.Item item) {
        switch (item) {
            case WorkloadPlan.GangArrival g -> {
                for (WorkloadPlan.PlannedPod p : g.pods()) {
                    scheduler.deletePod(p.id().uid());
                }
                scheduler.deletePodGroup(g.podGroup().key());
            }
            case WorkloadPlan.PodArrival p -> scheduler.deletePod(p.pod().id().uid());
        }
    }

    /**
     * A kube-scheduler attempt: a single pod is filtered and bound; a gang's first unbound member is filtered (which may
     * admit the gang), and once the gang holds a reservation every member is filtered and bound. Returns the pods' run
     * time once started, else -1.
     */
    private long tryStart(WorkloadPlan.Item item) {
        return switch (item) {
            case WorkloadPlan.PodArrival p -> {
                Pod pod = pod(p.pod(), null, null, PodPhase.PENDING);
                FilterResult f = scheduler.filter(pod, nodeNames);
                if (f.feasible().isEmpty()) {
                    yield -1;
                }
                String node = f.feasible().getFirst();
                if (!scheduler.bind(pod.id(), node).join().ok()) {
                    yield -1;
                }
                scheduler.upsertPod(pod(p.pod(), null, node, PodPhase.RUNNING));
                yield p.pod().runFor().toNanos();
            }
            case WorkloadPlan.GangArrival g -> startGang(g) ? g.pods().getFirst().runFor().toNanos() : -1;
        };
    }

    private boolean startGang(WorkloadPlan.GangArrival g) {
        GangKey key = g.podGroup().key();
        scheduler.filter(pod(g.pods().getFirst(), key, null, PodPhase.PENDING), nodeNames);
        if (scheduler.ledger().reservation(key) == null) {
            return false;
        }
        Map<WorkloadPlan.PlannedPod, String> placed = new LinkedHashMap<>();
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (WorkloadPlan.PlannedPod p : g.pods()) {
            FilterResult f = scheduler.filter(pod(p, key, null, PodPhase.PENDING), nodeNames);
            if (f.feasible().isEmpty()) {
                continue; // beyond minMember with no room: it would wait; here it is left out
            }
            placed.put(p, f.feasible().getFirst());
            binds.add(scheduler.bind(p.id(), f.feasible().getFirst()));
        }
        for (CompletableFuture<BindResult> b : binds) {
            if (!b.join().ok()) {
                throw new IllegalStateException("gang " + key + " was reserved but a bind failed: " + b.join().error());
            }
        }
        placed.forEach((p, node) -> scheduler.upsertPod(pod(p, key, node, PodPhase.RUNNING)));
        return true;
    }

    private static Pod pod(WorkloadPlan.PlannedPod p, GangKey gang, String node, PodPhase phase) {
        Resources request = PodRequests.effective(List.of(PodRequests.Container.of(p.requests())), List.of(), null, null);
        return new Pod(p.id(), node == null ? "1" : "2", request, gang, "", p.priority(), node, phase);
    }
}
