package dev.muster.demo.topology;

import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.Binder;
import dev.muster.core.ledger.NodeSnapshot;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.scoring.ScoringPolicy;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.demo.scenario.TopologyScenario;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Plays a {@link TopologyScenario} on the real scheduling core ({@link GangScheduler}: planner, admission, slot
 * steering, barrier) in simulated time, the way kube-scheduler drives it — filter, prioritize, bind for every member
 * — but without the HTTP extender, the controller or kube-scheduler's queue: a discrete-event loop of gang arrivals and
 * finishes. Waiting gangs are retried, oldest first, after every event. The same seed gives the same arrivals, sizes
 * and run times, so a run that honours the gangs' topology requests ({@code aware}) and one that ignores them can be
 * compared gang for gang. Single-threaded; one instance per run.
 */
public final class TopologySimulation {
    /** One gang as the scenario drew it. */
    record Draw(String name, long arriveNanos, int size, Resources request, long runNanos, TopologyRequest topology) {}

    /** What happened to one gang. */
    public record GangResult(String name, int size, TopologyRequest topology, long arriveNanos, long startNanos, int racks, int blocks) {
        public boolean started() {
            return startNanos >= 0;
        }
    }

    /** Free whole racks (no pod, no reservation on any node) at one simulated moment. */
    public record Sample(long atNanos, int freeWholeRacks, int runningGangs, int waitingGangs) {}

    public record Run(boolean aware, List<GangResult> gangs, List<Sample> samples, long endNanos) {}

    private final TopologyScenario scenario;
    private final boolean aware;
    private long now;
    private final GangScheduler scheduler;
    private final List<String> nodeNames = new ArrayList<>();
    private final Map<String, Integer> rackOfNode = new HashMap<>();
    private final Map<String, Integer> blockOfNode = new HashMap<>();
    private long seq;

    private record Event(long at, long seq, int kind, Object subject) {
        static final int ARRIVE = 0;
        static final int FINISH = 1;
        static final int SAMPLE = 2;
    }

    private TopologySimulation(TopologyScenario scenario, boolean aware) {
        this.scenario = scenario;
        this.aware = aware;
        Binder immediate = (PodId pod, String node) -> CompletableFuture.<Void>completedFuture(null);
        SchedulerConfig config = SchedulerConfig.DEFAULT.withPolicy(scenario.scoring())
                .withTopologyLevels(TopologyLevels.of(TopologyScenario.LEVELS));
        scheduler = new GangScheduler(config, immediate, new AllocationJournal(1 << 12, InstantSource.fixed(Instant.EPOCH)), () -> now);
        int rack = 0;
        for (int b = 0; b < scenario.blocks(); b++) {
            for (int r = 0; r < scenario.racksPerBlock(); r++, rack++) {
                for (int n = 0; n < scenario.nodesPerRack(); n++) {
                    String name = String.format("b%d-r%d-n%d", b, rack, n);
                    scheduler.upsertNode(new Node(name, scenario.node(), true, Map.of(TopologyScenario.BLOCK_LABEL, "b" + b,
                            TopologyScenario.RACK_LABEL, "r" + rack, TopologyScenario.HOST_LABEL, name)));
                    nodeNames.add(name);
                    rackOfNode.put(name, rack);
                    blockOfNode.put(name, b);
                }
            }
        }
        scheduler.upsertQueue(QueueSpec.open(PodGroupSpec.DEFAULT_QUEUE, null));
        scheduler.markSynced();
    }

    /** Runs the scenario once; {@code aware}: with the gangs' topology requests, else without any. */
    public static Run run(TopologyScenario scenario, boolean aware) {
        return new TopologySimulation(scenario, aware).play(draw(scenario));
    }

    /** The gangs of the scenario, drawn from its seed (identical for both runs). */
    static List<Draw> draw(TopologyScenario s) {
        Random random = new Random(s.seed());
        List<Draw> out = new ArrayList<>();
        for (TopologyScenario.Gangs g : s.gangs()) {
            long t = g.arrival().start().toNanos();
            for (int i = 0; i < g.count(); i++) {
                t += g.arrival().nextGapNanos(random);
                out.add(new Draw(g.name() + "-" + i, t, (int) g.size().draw(random), g.shape().draw(random).plus(Resources.builder().set("pods", 1).build()),
                        g.duration().draw(random).toNanos(), g.topology()));
            }
        }
        out.sort(Comparator.comparingLong(Draw::arriveNanos).thenComparing(Draw::name));
        return out;
    }

    private Run play(List<Draw> draws) {
        PriorityQueue<Event> events = new PriorityQueue<>(Comparator.comparingLong(Event::at).thenComparingLong(Event::seq));
        for (Draw d : draws) {
            events.add(new Event(d.arriveNanos(), seq++, Event.ARRIVE, d));
        }
        events.add(new Event(0, seq++, Event.SAMPLE, null));
        Map<String, GangResult> results = new LinkedHashMap<>();
        Map<String, List<Pod>> members = new HashMap<>();
        List<Draw> waiting = new ArrayList<>();
        Set<String> running = new HashSet<>();
        List<Sample> samples = new ArrayList<>();
        int pending = draws.size();
        while (!events.isEmpty()) {
            Event e = events.poll();
            now = e.at();
            switch (e.kind()) {
                case Event.ARRIVE -> {
                    Draw d = (Draw) e.subject();
                    GangKey key = new GangKey("demo", d.name());
                    scheduler.upsertPodGroup(new PodGroupSpec(key, d.size(), Map.of(), Resources.ZERO, PodGroupSpec.DEFAULT_QUEUE, "", null,
                            null, aware ? d.topology() : null));
                    List<Pod> pods = new ArrayList<>();
                    for (int i = 0; i < d.size(); i++) {
                        Pod p = new Pod(new PodId(d.name() + "-" + i + "-uid", "demo", d.name() + "-" + i), "1", d.request(), key, "", 0, null,
                                PodPhase.PENDING);
                        scheduler.upsertPod(p);
                        pods.add(p);
                    }
                    members.put(d.name(), pods);
                    results.put(d.name(), new GangResult(d.name(), d.size(), d.topology(), d.arriveNanos(), -1, 0, 0));
                    waiting.add(d);
                }
                case Event.FINISH -> {
                    Draw d = (Draw) e.subject();
                    for (Pod p : members.remove(d.name())) {
                        scheduler.deletePod(p.uid());
                    }
                    scheduler.deletePodGroup(new GangKey("demo", d.name()));
                    running.remove(d.name());
                    pending--;
                }
                default -> {
                    samples.add(new Sample(now, freeWholeRacks(), running.size(), waiting.size()));
                    if (pending > 0) {
                        events.add(new Event(now + scenario.sampleEvery().toNanos(), seq++, Event.SAMPLE, null));
                    }
                }
            }
            if (e.kind() != Event.SAMPLE) {
                for (Iterator<Draw> it = waiting.iterator(); it.hasNext(); ) {
                    Draw d = it.next();
                    Map<String, String> placed = tryStart(d, members.get(d.name()));
                    if (placed != null) {
                        it.remove();
                        running.add(d.name());
                        Set<Integer> racks = new HashSet<>();
                        Set<Integer> blocks = new HashSet<>();
                        for (String node : placed.values()) {
                            racks.add(rackOfNode.get(node));
                            blocks.add(blockOfNode.get(node));
                        }
                        results.put(d.name(), new GangResult(d.name(), d.size(), d.topology(), d.arriveNanos(), now, racks.size(), blocks.size()));
                        events.add(new Event(now + d.runNanos(), seq++, Event.FINISH, d));
                    }
                }
            }
        }
        List<String> broken = scheduler.checkInvariants();
        if (!broken.isEmpty()) {
            throw new IllegalStateException("the scheduler's books are inconsistent after the run: " + broken);
        }
        return new Run(aware, List.copyOf(results.values()), samples, now);
    }

    /**
     * What kube-scheduler does for each member — filter over every node, prioritize, bind to the best — once the
     * first member's filter has reserved the whole gang. Returns pod uid → node, or null when the gang did not start
     * (its reservation, if any, stays for the next attempt).
     */
    private Map<String, String> tryStart(Draw d, List<Pod> pods) {
        GangKey key = new GangKey("demo", d.name());
        scheduler.filter(pods.getFirst(), nodeNames);
        if (scheduler.gang(key).state() != GangState.RESERVED) {
            return null;
        }
        Map<String, String> placed = new LinkedHashMap<>();
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (Pod p : pods) {
            FilterResult f = scheduler.filter(p, nodeNames);
            int best = ScoringPolicy.highest(scheduler.prioritize(p, f.feasible()));
            if (best < 0) {
                throw new IllegalStateException("gang " + key + " was reserved but member " + p.id().name() + " passed no node: " + f.failed());
            }
            String node = f.feasible().get(best);
            placed.put(p.uid(), node);
            binds.add(scheduler.bind(p.id(), node));
        }
        for (CompletableFuture<BindResult> b : binds) {
            BindResult r = b.join();
            if (!r.ok()) {
                throw new IllegalStateException("gang " + key + ": a bind failed: " + r.error());
            }
        }
        for (Pod p : pods) { // the informer confirms the binds
            scheduler.upsertPod(new Pod(p.id(), "2", p.request(), p.gang(), "", 0, placed.get(p.uid()), PodPhase.RUNNING));
        }
        return placed;
    }

    private int freeWholeRacks() {
        boolean[] used = new boolean[scenario.racks()];
        for (NodeSnapshot n : scheduler.ledger().nodes()) {
            if (!n.used().isZero() || !n.reserved().isZero()) {
                used[rackOfNode.get(n.name())] = true;
            }
        }
        int free = 0;
        for (boolean u : used) {
            free += u ? 0 : 1;
        }
        return free;
    }
}
