package dev.muster.core.scheduler;

import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.Binder;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.Pod;
import dev.muster.core.model.PodPhase;
import dev.muster.core.scoring.ScoringPolicy;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.testing.FakeClock;
import dev.muster.core.testing.RecordingBinder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Many threads hammer one GangScheduler with mixed operations (node updates, single pods, gangs whose members
 * arrive over time, binds — answered by the API server later, so deletes land while Bindings are in flight —,
 * Bindings that fail and a Binder that throws instead of answering, held binds, re-filters and second binds of
 * members whose bind is still waiting (kube-scheduler's httpTimeout shorter than the barrier's wait), leadership lost
 * with binds waiting, deletions, completions, expiry, reads) while a checker verifies the books throughout;
 * at the end every pod is removed and every reservation expires, and nothing may be left over: no capacity,
 * no waiting or held bind, no unanswered bind.
 */
class GangSchedulerStressTest {
    private static final int THREADS = 8;
    private static final int OPS_PER_THREAD = 30_000;
    private static final int NODES = 48;

    @Test
    void invariantsHoldUnderConcurrentMixedOperations() throws Exception {
        FakeClock clock = new FakeClock();
        RecordingBinder binder = new RecordingBinder();
        binder.holdAll(); // Bindings complete when a worker says so (completeHeld), like a real API server's answers
        AllocationJournal journal = new AllocationJournal(4096, java.time.InstantSource.fixed(java.time.Instant.ofEpochMilli(0L)));
        StressEvictor evictor = new StressEvictor();
        GangScheduler s = new GangScheduler(SchedulerConfig.DEFAULT.withGangDeadline(Duration.ofSeconds(5)), binder, evictor,
                dev.muster.core.preempt.DisruptionBudgets.NONE, journal, clock);
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            s.upsertNode(node("n" + i, "16", "64Gi"));
            nodes.add("n" + i);
        }
        s.upsertQueue(queue("default"));
        s.markSynced();

        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> allUids = new ConcurrentLinkedQueue<>();
        AtomicLong ops = new AtomicLong();
        CyclicBarrier start = new CyclicBarrier(THREADS + 1);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int seed = t;
            workers.add(pool.submit(() -> {
                start.await();
                worker(s, clock, binder, evictor, nodes, new Random(seed), "t" + seed, allUids, ops);
                return null;
            }));
        }
        Future<?> checker = pool.submit(() -> {
            start.await();
            long next = 0;
            while (workers.stream().anyMatch(w -> !w.isDone())) {
                if (ops.get() < next) {
                    Thread.yield();
                    continue;
                }
                next = ops.get() + 4_000; // check the books every few thousand operations
                binder.completeHeld();
                List<String> problems = s.checkInvariants();
                violations.addAll(problems);
                s.stats();
            }
            return null;
        });
        for (Future<?> w : workers) {
            w.get(15, TimeUnit.MINUTES); // a guard against a hang on a busy machine, not a time limit; rethrows any assertion failure from the worker
        }
        checker.get(1, TimeUnit.MINUTES);
        pool.shutdown();
        binder.completeHeld();

        assertThat(ops.get()).isGreaterThanOrEqualTo((long) THREADS * OPS_PER_THREAD);
        assertThat(binder.bound()).as("the mix must really bind pods, not only refuse them").hasSizeGreaterThan(1_000);
        assertThat(violations).isEmpty();
        List<String> problems = s.checkInvariants();
        assertThat(problems).isEmpty();

        assertThat(s.preemptionStats().priorityDecisions()).as("the mix must really preempt").isPositive();

        // drain: every pod leaves, every reservation expires → nothing may remain anywhere
        for (String uid : allUids) {
            s.deletePod(uid);
        }
        binder.completeHeld(); // Bindings of pods deleted meanwhile succeed late: no phantom capacity may follow
        clock.advance(Duration.ofMinutes(10));
        s.expireDue();
        // a record outlives a lost leadership; the next ticks read it back (answered on another thread), finish or roll
        // back its decision, and delete it once nothing of it is left to evict
        for (int i = 0; i < 2_000 && !evictor.records.isEmpty(); i++) {
            clock.advance(Duration.ofSeconds(1));
            s.expireDue();
            evictor.awaitLastAnswer(); // the next tick sees the records this one asked for
        }
        assertThat(evictor.records).as("records of decisions that ended").isEmpty();
        List<String> after = s.checkInvariants();
        assertThat(after).isEmpty();
        assertThat(s.ledger().pods().size()).isZero();
        assertThat(s.ledger().reservations().size()).isZero();
        boolean empty = s.ledger().empty();
        assertThat(empty).isTrue();
        AllocationSnapshot totals = journal.snapshot();
        assertThat(totals.allocatedByQueue()).isEmpty();
        assertThat(s.stats().waitingBinds()).isZero();
        assertThat(s.stats().heldBinds()).isZero();
        assertThat(s.stats().bindingsInFlight()).isZero();
    }

    private static void worker(GangScheduler s, FakeClock clock, RecordingBinder binder, StressEvictor evictor, List<String> nodes,
                               Random rnd, String prefix, ConcurrentLinkedQueue<String> allUids, AtomicLong ops) {
        List<Pod> mine = new ArrayList<>();
        List<CompletableFuture<BindResult>> pending = new ArrayList<>();
        int gangs = 0;
        for (int i = 0; i < OPS_PER_THREAD; i++) {
            int op = rnd.nextInt(100);
            if (op < 5) {
                String n = nodes.get(rnd.nextInt(nodes.size()));
                s.upsertNode(node(n, String.valueOf(8 + rnd.nextInt(9)), (32 + rnd.nextInt(33)) + "Gi"));
            } else if (op < 30) {
                Pod p = pod(prefix + "-s" + i).requests(String.valueOf(1 + rnd.nextInt(4)), "1Gi").build();
                if (rnd.nextInt(10) == 0) {
                    binder.failFor(p.uid()); // its Binding answers with an error
                } else if (rnd.nextInt(20) == 0) {
                    binder.throwFor(p.uid()); // the Binder throws instead of answering
                }
                s.upsertPod(p);
                mine.add(p);
                allUids.add(p.uid());
                if (rnd.nextBoolean()) {
                    pending.add(schedule(s, p, nodes, rnd));
                } else {
                    CompletableFuture<BindResult> viaBindVerb = scheduleBoundByKubeScheduler(s, p, nodes, rnd);
                    if (viaBindVerb != null) {
                        pending.add(viaBindVerb);
                    }
                }
            } else if (op < 45) {
                String pg = prefix + "-g" + (gangs++);
                int size = 2 + rnd.nextInt(4);
                s.upsertPodGroup(podGroup("default", pg, size, "default"));
                List<Pod> members = new ArrayList<>();
                for (int m = 0; m < size; m++) {
                    Pod p = pod(pg + "-" + m).gang(pg).requests(String.valueOf(1 + rnd.nextInt(2)), "2Gi").priority(gangs % 4).build();
                    if (rnd.nextInt(25) == 0) {
                        binder.failFor(p.uid());
                    } else if (rnd.nextInt(25) == 0) {
                        binder.throwFor(p.uid());
                    }
                    s.upsertPod(p);
                    members.add(p);
                    allUids.add(p.uid());
                }
                mine.addAll(members);
                int arriving = rnd.nextInt(5) == 0 ? size - 1 : size; // sometimes the last member never binds
                for (int m = 0; m < arriving; m++) {
                    pending.add(schedule(s, members.get(m), nodes, rnd));
                }
            } else if (op < 50) {
                // a gang whose members are created in waves: the first ones are offered before the rest exist
                String pg = prefix + "-w" + (gangs++);
                int size = 2 + rnd.nextInt(4);
                if (rnd.nextBoolean()) {
                    s.upsertPodGroup(podGroup("default", pg, size, "default"));
                }
                for (int m = 0; m < size; m++) {
                    Pod p = pod(pg + "-" + m).gang(pg).requests(String.valueOf(1 + rnd.nextInt(2)), "2Gi").build();
                    s.upsertPod(p);
                    mine.add(p);
                    allUids.add(p.uid());
                    pending.add(schedule(s, p, nodes, rnd));
                    if (m == 0) {
                        s.upsertPodGroup(podGroup("default", pg, size, "default")); // the PodGroup may come late too
                    }
                }
            } else if (op < 53) {
                binder.completeHeld();
            } else if (op < 75 && !mine.isEmpty()) {
                Pod p = mine.remove(rnd.nextInt(mine.size()));
                if (rnd.nextBoolean()) {
                    s.deletePod(p.uid());
                } else {
                    String node = binder.boundNode(p.uid());
                    s.upsertPod(node == null ? p.withPhase(PodPhase.FAILED) : p.withNode(node).withPhase(PodPhase.SUCCEEDED));
                }
            } else if (op < 80) {
                clock.advance(Duration.ofMillis(100));
                if (rnd.nextInt(5) == 0) {
                    s.expireDue(); // the periodic tick: every 200 ms in the extender, so far rarer than pod events
                }
            } else if (op < 85 && !mine.isEmpty()) {
                Pod p = mine.get(rnd.nextInt(mine.size()));
                String node = binder.boundNode(p.uid());
                if (node != null) {
                    s.upsertPod(p.withNode(node).withPhase(PodPhase.RUNNING)); // the informer confirms our bind
                }
            } else if (op < 88 && !mine.isEmpty()) {
                Pod p = mine.get(rnd.nextInt(mine.size()));
                if (p.gang() != null) {
                    s.cancelBind(p.id());
                }
            } else if (op < 91 && !mine.isEmpty()) {
                // kube-scheduler's httpTimeout is shorter than the barrier's wait: it gave up the bind (the server may or may
                // not have noticed and cancelled it) and schedules the member again — re-filter, then a second bind
                Pod p = mine.get(rnd.nextInt(mine.size()));
                if (p.gang() != null) {
                    if (rnd.nextBoolean()) {
                        s.cancelBind(p.id());
                    }
                    pending.add(schedule(s, p, nodes, rnd));
                }
            } else if (op < 92 && rnd.nextInt(20) == 0) {
                s.leadershipLost("leadership lost (stress)"); // every waiting and held bind fails at once
            } else if (op < 94) {
                // the cluster deletes the pods whose eviction the API server accepted; a dry run asks about a gang
                for (String uid = evictor.evicted.poll(); uid != null; uid = evictor.evicted.poll()) {
                    s.deletePod(uid);
                }
                if (!mine.isEmpty() && mine.get(rnd.nextInt(mine.size())).gang() instanceof dev.muster.core.model.GangKey k) {
                    s.preemptionAdvice(k);
                }
            } else {
                Pod p = mine.isEmpty() ? pod("probe").build() : mine.get(rnd.nextInt(mine.size()));
                s.prioritize(p, nodes);
                if (p.gang() != null) {
                    s.gang(p.gang());
                }
                if (rnd.nextInt(50) == 0) {
                    s.stats(); // O(gangs): a metrics scrape, not a per-pod call
                }
            }
            ops.incrementAndGet();
        }
        // every bind answered eventually: keep the clock ticking (as the extender's periodic tick does) until all
        // of this worker's binds are answered — an expiry may itself admit a gang with held binds, whose members
        // then wait at the barrier for the next tick
        CompletableFuture<Void> all = CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new));
        for (int tick = 0; tick < 1_000 && !all.isDone(); tick++) {
            binder.completeHeld();
            clock.advance(Duration.ofMinutes(10));
            s.expireDue();
            binder.completeHeld();
        }
        for (CompletableFuture<BindResult> f : pending) {
            assertThat(f.orTimeout(5, TimeUnit.MINUTES).join()).isNotNull(); // other workers may still have its Binding answer held
        }
    }

    /**
     * Evicts as an API server would answer, at once: mostly accepted (the pod is then deleted by a worker, as kubelets
     * and the API server would), sometimes refused by a budget or failing. Thread-safe.
     */
    static final class StressEvictor implements dev.muster.core.preempt.Evictor {
        final ConcurrentLinkedQueue<String> evicted = new ConcurrentLinkedQueue<>();
        private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
        /** Decisions recorded for a next leader: written by the core's callers, read back on another thread. */
        final java.util.concurrent.ConcurrentHashMap<dev.muster.core.model.GangKey, dev.muster.core.preempt.PreemptionRecord> records =
                new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public java.util.concurrent.CompletionStage<String> record(dev.muster.core.preempt.PreemptionRecord decision) {
            records.put(decision.preemptor(), decision);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public void forget(dev.muster.core.preempt.PreemptionRecord decision) {
            records.computeIfPresent(decision.preemptor(), (k, r) -> r.id().equals(decision.id()) ? null : r);
        }

        /** The last read's answer, done once the core has handled it (on the answering thread). */
        private volatile CompletableFuture<Void> lastAnswer = CompletableFuture.completedFuture(null);

        @Override
        public java.util.concurrent.CompletionStage<List<dev.muster.core.preempt.PreemptionRecord>> records() {
            CompletableFuture<List<dev.muster.core.preempt.PreemptionRecord>> answer = new CompletableFuture<>();
            // answered on another thread, which also runs what the core does with the answer (or, had the answer come
            // before the core asked for it, the core ran that on its own thread before its tick returned)
            lastAnswer = CompletableFuture.runAsync(() -> answer.complete(List.copyOf(records.values())));
            return answer;
        }

        /** Waits, without sleeping, until the last read was answered and the core has handled its answer. */
        void awaitLastAnswer() {
            lastAnswer.join();
        }

        @Override
        public java.util.concurrent.CompletionStage<dev.muster.core.preempt.EvictionOutcome> evict(dev.muster.core.model.PodId pod, String why) {
            int n = calls.incrementAndGet();
            dev.muster.core.preempt.EvictionOutcome o;
            if (n % 7 == 0) {
                o = new dev.muster.core.preempt.EvictionOutcome.RefusedByBudget("injected");
            } else if (n % 11 == 0) {
                o = new dev.muster.core.preempt.EvictionOutcome.Failed("injected");
            } else {
                evicted.add(pod.uid());
                o = new dev.muster.core.preempt.EvictionOutcome.Evicted();
            }
            return CompletableFuture.completedFuture(o);
        }
    }

    /**
     * A single pod that kube-scheduler binds itself (Muster binds only marked gang members): filter assumes the one node
     * it leaves; then kube-scheduler binds it there (the informer shows it), or filters it again (a later plugin
     * failed), or never binds it (the assumption expires), or asks Muster's bind verb after all (a configuration
     * whose one extender binds every pod): that bind is returned.
     */
    private static CompletableFuture<BindResult> scheduleBoundByKubeScheduler(GangScheduler s, Pod p, List<String> nodes, Random rnd) {
        List<String> candidates = roomInKubeSchedulersView(s, p, nodes);
        java.util.Collections.shuffle(candidates, rnd);
        FilterResult f;
        try {
            f = s.filter(p, candidates, false, true);
        } catch (VerbRefusedException refused) {
            return null; // answered with an error (a leader change's admission hold, say): kube-scheduler tries it again
        }
        if (f.feasible().isEmpty()) {
            return null;
        }
        switch (rnd.nextInt(4)) {
            case 0 -> s.upsertPod(p.withNode(f.feasible().getFirst()).withPhase(PodPhase.RUNNING));
            case 1 -> {
                try {
                    s.filter(p, candidates, false, true);
                } catch (VerbRefusedException refused) {
                    return null;
                }
            }
            case 2 -> {
                return s.bind(p.id(), f.feasible().getFirst());
            }
            default -> { }
        }
        return null;
    }

    /**
     * The candidates kube-scheduler's own filters would pass: nodes where the pod fits beside what is used (it knows no
     * gang reservations), read from Muster's ledger as a stand-in for kube-scheduler's cache.
     */
    private static List<String> roomInKubeSchedulersView(GangScheduler s, Pod p, List<String> nodes) {
        java.util.Map<String, dev.muster.core.ledger.NodeSnapshot> byName = new java.util.HashMap<>();
        for (dev.muster.core.ledger.NodeSnapshot n : s.nodes()) {
            byName.put(n.name(), n);
        }
        List<String> out = new ArrayList<>();
        for (String n : nodes) {
            dev.muster.core.ledger.NodeSnapshot e = byName.get(n);
            if (e != null && p.request().fitsIn(e.allocatable().minus(e.used()))) {
                out.add(n);
            }
        }
        return out;
    }

    private static CompletableFuture<BindResult> schedule(GangScheduler s, Pod p, List<String> nodes, Random rnd) {
        List<String> candidates = new ArrayList<>(nodes);
        java.util.Collections.shuffle(candidates, rnd);
        candidates = candidates.subList(0, 8 + rnd.nextInt(candidates.size() - 8)); // a sample, like percentageOfNodesToScore
        candidates = roomInKubeSchedulersView(s, p, candidates);
        if (candidates.isEmpty()) {
            return CompletableFuture.completedFuture(BindResult.failed("unschedulable"));
        }
        FilterResult f;
        try {
            f = s.filter(p, candidates);
        } catch (VerbRefusedException refused) {
            // the re-filter of a member the informer already showed bound (or deleted), or the admission hold after a
            // leadership loss until the records are read again: the verb's answer is an Error
            return CompletableFuture.completedFuture(BindResult.failed(refused.getMessage()));
        }
        if (f.feasible().isEmpty()) {
            return CompletableFuture.completedFuture(BindResult.failed("unschedulable"));
        }
        String best = f.feasible().get(ScoringPolicy.highest(s.prioritize(p, f.feasible())));
        return s.bind(p.id(), best);
    }

}
