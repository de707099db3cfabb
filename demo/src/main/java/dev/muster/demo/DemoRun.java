package dev.muster.demo;

import dev.muster.controller.Controller;
import dev.muster.core.model.Node;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.Resources;
import dev.muster.core.preempt.Evictor;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.demo.cluster.ClusterEvictor;
import dev.muster.demo.cluster.ClusterPod;
import dev.muster.demo.cluster.ClusterUsage;
import dev.muster.demo.cluster.EmbeddedCluster;
import dev.muster.demo.cluster.Kubelet;
import dev.muster.demo.cluster.Watch;
import dev.muster.demo.driver.ProgressLine;
import dev.muster.demo.driver.SchedulerDriver;
import dev.muster.demo.report.Checkpoint;
import dev.muster.demo.report.GangOutcome;
import dev.muster.demo.report.RunResult;
import dev.muster.demo.report.Sample;
import dev.muster.demo.report.StreamRecorder;
import dev.muster.demo.scenario.NodeGroup;
import dev.muster.demo.scenario.PodShape;
import dev.muster.demo.scenario.Scenario;
import dev.muster.demo.scenario.Settings;
import dev.muster.demo.scenario.WorkloadPlan;
import dev.muster.demo.time.SimClock;
import dev.muster.demo.time.SimTimer;
import dev.muster.server.ServerDefaults;
import dev.muster.testsupport.extender.ExtenderClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * Plays a scenario: builds the embedded cluster (nodes {@code node-1..N}, Queues), starts the real extender and
 * controller on it ({@link EmbeddedMuster}), the simulated kubelets and the kube-scheduler stand-in, creates the
 * planned PodGroups and pods at their simulated arrival times, samples the cluster, and ends when every pod has
 * run (or what is left can never be placed, or the time limit passes). Twice — half-way through the arrivals and
 * at the end — it stops simulated time, lets scheduling go quiet and checks that the Queue status the controller wrote
 * equals the sum of the bound pods' requests.
 *
 * <p>Runs on the caller's thread, which it uses to watch progress; everything it starts is stopped before
 * {@link #run} returns.
 */
public final class DemoRun {
    /**
     * How long a checkpoint waits for scheduling to go quiet (it may not: members of a reserved gang can sit in the
     * unschedulable pool while others wait at the barrier), then for the written status to match.
     */
    static final Duration QUIET_WAIT = Duration.ofSeconds(3);
    static final Duration MATCH_WAIT = Duration.ofSeconds(30);

    static final String MID_RUN = "half-way through the arrivals";
    static final String AT_THE_END = "at the end";

    private final Scenario scenario;
    private final Settings settings;
    private final ProgressLine progress;

    public DemoRun(Scenario scenario, ProgressLine progress) {
        this.scenario = scenario;
        this.settings = scenario.settings();
        this.progress = progress;
    }

    public RunResult run() throws IOException, InterruptedException {
        long realStart = System.nanoTime();
        WorkloadPlan plan = WorkloadPlan.of(scenario);
        SimClock clock = new SimClock(settings.speed());
        EmbeddedCluster cluster = new EmbeddedCluster(clock::nanos);
        int nodes = createNodesAndQueues(scenario, cluster);
        StreamRecorder recorder = new StreamRecorder(clock::nanos);
        List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
        List<Checkpoint> checkpoints = new ArrayList<>();
        try (SimTimer timer = new SimTimer(clock, "sim-time");
             ClusterEvictor evictor = new ClusterEvictor(cluster, clock::nanos);
             EmbeddedMuster muster = EmbeddedMuster.start(cluster, EmbeddedMuster.Ports.anyLoopback(), musterOptions(settings, evictor), recorder);
             Watch kubelet = cluster.watch("kubelet", new Kubelet(cluster, timer, settings.podStartup()));
             SchedulerDriver driver = new SchedulerDriver(driverOptions(settings),
                     new ExtenderClient(muster.extenderUrl(), settings.gangDeadline().plusSeconds(30)));
             Watch scheduler = cluster.watch("kube-scheduler", driver)) {
            driver.start();
            AtomicInteger created = new AtomicInteger();
            for (WorkloadPlan.Item item : plan.items()) {
                timer.at(item.at(), () -> {
                    create(cluster, item);
                    created.incrementAndGet();
                });
            }
            AtomicBoolean sampling = new AtomicBoolean(true);
            Runnable sample = new Runnable() {
                @Override
                public void run() {
                    samples.add(new Sample(clock.nanos(), cluster.usage(), muster.extender().scheduler().stats().queueShares()));
                    if (sampling.get()) {
                        timer.after(settings.sampleEvery(), this);
                    }
                }
            };
            timer.at(0, sample);
            clock.resume();

            String endReason;
            boolean finished;
            boolean checkpointed = plan.items().isEmpty();
            long lastChange = System.nanoTime();
            long lastBinds = -1;
            long lastCycles = 0;
            long lastCycleTime = System.nanoTime();
            double cyclesPerSecond = 0;
            while (true) {
                Thread.sleep(100);
                ClusterUsage u = cluster.usage();
                long now = System.nanoTime();
                long cycles = driver.stats().cycles();
                if (now - lastCycleTime >= 1_000_000_000L) {
                    cyclesPerSecond = (cycles - lastCycles) / ((now - lastCycleTime) / 1e9);
                    lastCycles = cycles;
                    lastCycleTime = now;
                }
                double rate = cyclesPerSecond;
                progress.update(() -> progressText(clock, realStart, u, recorder, rate));
                boolean arrived = created.get() == plan.items().size();
                if (!checkpointed && clock.nanos() >= plan.lastArrival() / 2) {
                    checkpoints.add(checkpoint(MID_RUN, clock, cluster, driver));
                    checkpointed = true;
                    continue;
                }
                int holding = u.pods("bound") + u.pods("running");
                int pending = u.pods("pending");
                long binds = driver.stats().binds();
                if (binds != lastBinds || holding > 0 || !arrived) {
                    lastBinds = binds;
                    lastChange = now;
                }
                if (arrived && holding == 0 && pending == 0) {
                    finished = true;
                    endReason = "finished: every pod ran to completion";
                    break;
                }
                if (arrived && holding == 0 && driver.idle()
                        && now - lastChange > settings.podMaxBackoff().plusSeconds(2).toNanos()) {
                    finished = true;
                    endReason = "finished: nothing runs and the " + pending + " pods left were retried on the empty cluster: they can never be placed";
                    break;
                }
                if (now - realStart > settings.timeLimit().toNanos()) {
                    finished = false;
                    endReason = "stopped at the time limit of " + settings.timeLimit().toSeconds() + "s (real) with " + pending + " pods pending and "
                            + holding + " running";
                    break;
                }
            }
            progress.update(() -> progressText(clock, realStart, cluster.usage(), recorder, 0));
            progress.finish();
            sampling.set(false);
            samples.add(new Sample(clock.nanos(), cluster.usage(), muster.extender().scheduler().stats().queueShares()));
            checkpoints.add(checkpoint(AT_THE_END, clock, cluster, driver));
            clock.pause();
            long simEnd = clock.nanos();

            List<ClusterPod> pods = cluster.pods();
            long[] singleWaits = pods.stream().filter(p -> p.gang() == null && p.boundAt() >= 0).mapToLong(p -> p.boundAt() - p.createdAt()).toArray();
            ClusterUsage end = cluster.usage();
            long watchFailures = kubelet.failures() + scheduler.failures() + muster.watchFailures();
            return new RunResult(scenario, nodes, end.allocatable(), plan.podCount(), Duration.ofNanos(System.nanoTime() - realStart), simEnd,
                    finished, endReason, List.copyOf(samples), GangOutcome.of(cluster.podGroups(), pods), singleWaits, end.podsByPhase(),
                    recorder.summary(), driver.stats().snapshot(), cluster.counters(), cluster.queues(), checkpoints,
                    muster.extender().scheduler().checkInvariants(), watchFailures, evictor.evictions(), timer.lateness());
        }
    }

    /**
     * The extender and controller as the scenario sets them: the set-aside time and the victims' minimum run time are
     * simulated minutes, given to the extender (which runs in real time) divided by the speed; preemption and reclaim
     * as the scenario says (on, as in the chart, unless it turns them off), evicting through {@code evictor}.
     */
    static EmbeddedMuster.Options musterOptions(Settings s, ClusterEvictor evictor) {
        PreemptionSettings p = new PreemptionSettings(s.preemption(), s.reclaim(), s.victimMinRuntimeReal(), PreemptionSettings.DEFAULT.margin(),
                PreemptionSettings.DEFAULT.reclaimBand());
        // the extender's 30 s is real time; the demo's clock runs faster: one simulated minute
        return new EmbeddedMuster.Options(s.gangDeadline(), s.flushInterval(), Controller.Settings.DEFAULTS,
                Duration.ofMillis((long) (60_000 / s.speed())), p, p.any() ? evictor : Evictor.NONE);
    }

    static SchedulerDriver.Options driverOptions(Settings s) {
        return new SchedulerDriver.Options(ServerDefaults.SCHEDULER_NAME, s.nodesToScore(), s.podInitialBackoff(), s.podMaxBackoff(),
                s.unschedulableFlush());
    }

    /** Nodes {@code node-1..N} in the order of the scenario's groups (so fixture requests naming node-1..3 make sense), then Queues. */
    static int createNodesAndQueues(Scenario scenario, EmbeddedCluster cluster) {
        int n = 0;
        for (NodeGroup g : scenario.nodes()) {
            for (int i = 0; i < g.count(); i++) {
                cluster.applyNode(Node.of("node-" + (++n), g.allocatable()));
            }
        }
        for (QueueSpec q : scenario.queues()) {
            cluster.applyQueue(q);
        }
        return n;
    }

    /** Creates what arrives: a PodGroup and then its pods (as a job controller would), or a single pod. */
    static void create(EmbeddedCluster cluster, WorkloadPlan.Item item) {
        switch (item) {
            case WorkloadPlan.GangArrival g -> {
                cluster.createPodGroup(g.podGroup());
                for (WorkloadPlan.PlannedPod p : g.pods()) {
                    cluster.createPod(p.id(), p.requests(), g.podGroup().key(), ServerDefaults.SCHEDULER_NAME, p.priority(), p.runFor());
                }
            }
            case WorkloadPlan.PodArrival a -> cluster.createPod(a.pod().id(), a.pod().requests(), null, ServerDefaults.SCHEDULER_NAME,
                    a.pod().priority(), a.pod().runFor());
        }
    }

    /**
     * Stops simulated time, waits for scheduling to go quiet and every watch to catch up, then waits for each
     * Queue's written {@code status.allocated} to equal the sum of its bound pods' requests (read together, under
     * the cluster's lock); resumes simulated time.
     */
    static Checkpoint checkpoint(String label, SimClock clock, EmbeddedCluster cluster, SchedulerDriver driver) throws InterruptedException {
        boolean wasPaused = clock.paused();
        clock.pause();
        try {
            waitUntil(driver::idle, QUIET_WAIT);
            cluster.awaitWatchesCaughtUp(MATCH_WAIT);
            long quiet = System.nanoTime();
            ClusterUsage u;
            boolean matched;
            while (true) {
                u = cluster.usage();
                matched = statusMatches(u);
                if (matched || System.nanoTime() - quiet > MATCH_WAIT.toNanos()) {
                    break;
                }
                Thread.sleep(50);
            }
            return new Checkpoint(label, clock.nanos(), u.statusByQueue(), u.usedByQueue(), matched, Duration.ofNanos(System.nanoTime() - quiet));
        } finally {
            if (!wasPaused) {
                clock.resume();
            }
        }
    }

    /** Every Queue's written status.allocated equals the sum of its bound pods' requests (no status yet counts as zero). */
    static boolean statusMatches(ClusterUsage u) {
        for (Map.Entry<String, Resources> e : u.usedByQueue().entrySet()) {
            Resources written = u.statusByQueue().get(e.getKey());
            if (written == null ? !e.getValue().isZero() : !written.equals(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static void waitUntil(BooleanSupplier condition, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    private static String progressText(SimClock clock, long realStart, ClusterUsage u, StreamRecorder recorder, double cyclesPerSecond) {
        long sim = clock.nanos() / 1_000_000_000L;
        long real = (System.nanoTime() - realStart) / 1_000_000_000L;
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "sim %d:%02d:%02d real %d:%02d | pods %d running, %d starting, %d pending, %d done | gangs %d running, %d waiting",
                sim / 3600, (sim % 3600) / 60, sim % 60, real / 60, real % 60, u.pods("running"), u.pods("bound"), u.pods("pending"),
                u.pods("succeeded") + u.pods("failed"), u.gangsRunning(), u.gangsWaiting()));
        sb.append(" | util");
        for (String r : List.of("cpu", "memory", PodShape.GPU)) {
            long total = u.allocatable().get(r);
            if (total > 0) {
                sb.append(String.format(Locale.ROOT, " %s %.0f%%", r.equals(PodShape.GPU) ? "gpu" : r.equals("memory") ? "mem" : r,
                        100.0 * u.used().get(r) / total));
            }
        }
        sb.append(String.format(Locale.ROOT, " | %.0f cycles/s", cyclesPerSecond));
        long expired = recorder.expiredEvents();
        if (expired > 0) {
            sb.append(" | ").append(expired).append(" expired");
        }
        return sb.toString();
    }
}
