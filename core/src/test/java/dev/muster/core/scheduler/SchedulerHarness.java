package dev.muster.core.scheduler;

import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.Binder;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.scoring.ScoringPolicy;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.testing.FakeClock;
import dev.muster.core.testing.RecordingBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** A GangScheduler wired to a fake clock, a recording binder and a journal, plus kube-scheduler-like helpers. */
final class SchedulerHarness {
    final FakeClock clock = new FakeClock();
    final RecordingBinder binder = new RecordingBinder();
    final AllocationJournal journal = new AllocationJournal(1 << 16, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
    final GangScheduler scheduler;
    final List<String> nodeNames = new ArrayList<>();
    /** Every pod the scheduler asked to have retried ({@link PodWaker}), in order, with why. */
    final List<String> woken = java.util.Collections.synchronizedList(new ArrayList<>());

    SchedulerHarness() {
        this(SchedulerConfig.DEFAULT);
    }

    SchedulerHarness(SchedulerConfig config) {
        scheduler = new GangScheduler(config, binder, journal, clock, (pods, why) -> pods.forEach(p -> woken.add(p + ": " + why)));
    }

    /** A harness whose scheduler evicts through {@code evictor}, within {@code budgets}. */
    SchedulerHarness(SchedulerConfig config, dev.muster.core.preempt.Evictor evictor, dev.muster.core.preempt.DisruptionBudgets budgets) {
        scheduler = new GangScheduler(config, binder, evictor, budgets, journal, clock, (pods, why) -> pods.forEach(p -> woken.add(p + ": " + why)));
    }

    /** With {@code waker} instead of recording wakes in {@link #woken}. */
    SchedulerHarness(SchedulerConfig config, PodWaker waker) {
        scheduler = new GangScheduler(config, binder, journal, clock, waker);
    }

    /** {@code nodes} nodes n0.. of {@code cpu}/{@code mem}, the default queue, synced: the usual starting cluster. */
    static SchedulerHarness cluster(int nodes, String cpu, String mem) {
        return cluster(SchedulerConfig.DEFAULT, nodes, cpu, mem);
    }

    static SchedulerHarness cluster(SchedulerConfig config, int nodes, String cpu, String mem) {
        SchedulerHarness h = new SchedulerHarness(config);
        for (int i = 0; i < nodes; i++) {
            h.nodes(dev.muster.core.testing.Fixtures.node("n" + i, cpu, mem));
        }
        h.scheduler.upsertQueue(dev.muster.core.testing.Fixtures.queue("default"));
        h.scheduler.markSynced();
        return h;
    }

    SchedulerHarness nodes(Node... nodes) {
        for (Node n : nodes) {
            scheduler.upsertNode(n);
            nodeNames.add(n.name());
        }
        return this;
    }

    /** The cluster shows {@code pod} (an informer event), as it always has before kube-scheduler asks about it. */
    Pod seen(Pod pod) {
        scheduler.upsertPod(pod);
        return pod;
    }

    /** What kube-scheduler does for one pod: filter, prioritize, pick the best, bind (asynchronously). */
    CompletableFuture<BindResult> schedule(Pod pod) {
        FilterResult f = scheduler.filter(pod, nodeNames);
        if (f.feasible().isEmpty()) {
            return CompletableFuture.completedFuture(BindResult.failed("filter: " + f.failed().values().stream().findFirst()
                    .orElse(f.unresolvable().values().stream().findFirst().orElse("no nodes"))));
        }
        String best = f.feasible().get(ScoringPolicy.highest(scheduler.prioritize(pod, f.feasible())));
        return scheduler.bind(pod.id(), best);
    }

    /** Runs the tick {@code rounds} times, the clock advanced by {@code apart} after each. */
    void ticks(int rounds, java.time.Duration apart) {
        for (int round = 0; round < rounds; round++) {
            scheduler.expireDue();
            clock.advance(apart);
        }
    }

    /** Why gang {@code name} of namespace {@code default} cannot run even with preemption; fails when the advice is otherwise. */
    String whyCannotRun(String name) {
        dev.muster.core.preempt.PreemptionAdvice advice = scheduler.preemptionAdvice(new dev.muster.core.model.GangKey("default", name));
        if (!(advice instanceof dev.muster.core.preempt.PreemptionAdvice.CannotRun cannot)) {
            throw new AssertionError("expected gang " + name + " unable to run, but the advice is " + advice);
        }
        return cannot.why();
    }

    List<String> invariantViolations() {
        return scheduler.checkInvariants();
    }

    AllocationSnapshot totals() {
        return journal.snapshot();
    }
}
