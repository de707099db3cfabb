package dev.muster.core.scheduler;

import static dev.muster.core.scheduler.QueueGateTest.MUSTERS;
import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.GateLifter;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Many threads hammer lift decisions against queue changes: gated gangs are created, the queue closes, opens and
 * changes its capability, the tick runs, lifted pods are shown ungated, scheduled and bound, and finished gangs go —
 * all at once. At every lift, the gangs lifted and not finished never need more than the queue's largest capability
 * (two lifts never both take the same quota); in the end every gang was lifted, bound whole and the books balance.
 *
 * <p>The fake cluster keeps the API server's order: a lift reaches a pod only while it exists and is not bound (a lift
 * sent again late finds a bound pod unchanged, or a deleted one gone), and a deleted pod is never shown again. The
 * {@code cluster} monitor makes each of those steps one with the test's own books of what is lifted and finished. Lifts
 * run after the core releases its lock, so holding the monitor while calling the core cannot deadlock.
 */
class QueueGateConcurrencyTest {
    private static final int GANGS = 60;
    private static final String QUEUE = "q";

    @Test
    void liftsNeverOvershootTheQueueWhileItChangesAndEveryGangIsLiftedInTheEnd() throws Exception {
        ConcurrentLinkedQueue<PodId> requests = new ConcurrentLinkedQueue<>();
        Set<String> liveLifted = ConcurrentHashMap.newKeySet(); // gangs a lift was sent for and that are not finished
        Set<String> everLifted = ConcurrentHashMap.newKeySet();
        List<String> overshoots = new java.util.concurrent.CopyOnWriteArrayList<>();
        Set<String> finished = ConcurrentHashMap.newKeySet();
        Set<String> boundPods = ConcurrentHashMap.newKeySet();
        Object cluster = new Object(); // what the API server orders: a lift, a pod shown, a gang's pods deleted
        CountDownLatch ended = new CountDownLatch(1); // every gang finished, or an overshoot seen
        GateLifter lifter = (pod, annotations) -> {
            String gang = gangOf(pod);
            synchronized (cluster) {
                if (finished.contains(gang) || boundPods.contains(pod.uid())) {
                    return CompletableFuture.completedFuture(null); // a lift sent again before the cluster showed the first one
                }
                liveLifted.add(gang);
                everLifted.add(gang);
                if (liveLifted.size() > 2) { // capability at most 8 cpu, each gang 4 cpu
                    overshoots.add(liveLifted.toString());
                    ended.countDown();
                }
                requests.add(pod);
            }
            return CompletableFuture.completedFuture(null);
        };
        // The tick thread moves the fake clock 50 ms per turn without pause, so an hour passes in seconds on a busy
        // machine; a lifted gang past its deadline gives its quota back by design (its gate cannot be added again), so
        // the deadline here is one no run reaches.
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withGangDeadline(Duration.ofDays(3650))
                .withQueueGate(QueueGate.on(lifter)));
        for (int i = 0; i < 8; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue(QUEUE, res("8", "64Gi")));
        h.scheduler.markSynced();

        Map<String, List<Pod>> gangs = new ConcurrentHashMap<>();
        Set<String> ungatedPods = ConcurrentHashMap.newKeySet();
        Set<String> bound = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(6);
        CountDownLatch created = new CountDownLatch(2);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 2; t++) {
            int thread = t;
            workers.add(pool.submit(() -> { // users create gated gangs
                for (int i = thread; i < GANGS; i += 2) {
                    String name = "g" + i;
                    h.scheduler.upsertPodGroup(podGroup("default", name, 2, QUEUE));
                    List<Pod> members = new ArrayList<>();
                    for (int m = 0; m < 2; m++) {
                        members.add(h.seen(pod(name + "-" + m).gang(name).requests("2", "1Gi").constraints(MUSTERS).build()));
                    }
                    gangs.put(name, members);
                }
                created.countDown();
                return null;
            }));
        }
        workers.add(pool.submit(() -> { // the tick
            while (!stop.get()) {
                h.scheduler.expireDue();
                h.clock.advance(Duration.ofMillis(50));
            }
            return null;
        }));
        workers.add(pool.submit(() -> { // an operator edits the queue
            Random random = new Random(47);
            while (!stop.get()) {
                int pick = random.nextInt(3);
                h.scheduler.upsertQueue(switch (pick) {
                    case 0 -> new QueueSpec(QUEUE, QueueState.CLOSED, 1, res("8", "64Gi"), null, null, true);
                    case 1 -> queue(QUEUE, res("4", "64Gi"));
                    default -> queue(QUEUE, res("8", "64Gi"));
                });
                Thread.onSpinWait();
            }
            return null;
        }));
        workers.add(pool.submit(() -> { // the API server and kube-scheduler: lifted pods show ungated, then are scheduled
            while (!stop.get()) {
                for (PodId lifted = requests.poll(); lifted != null; lifted = requests.poll()) {
                    Pod p = memberOf(gangs, lifted);
                    synchronized (cluster) { // a pod deleted or bound since its lift was sent is not shown gated-free and unbound
                        if (p != null && !finished.contains(gangOf(lifted)) && !boundPods.contains(p.uid())) {
                            h.seen(p.withConstraints(NodeConstraints.NONE));
                            ungatedPods.add(p.uid());
                        }
                    }
                }
                for (Map.Entry<String, List<Pod>> e : gangs.entrySet()) {
                    String name = e.getKey();
                    if (finished.contains(name) || bound.contains(name)
                            || !e.getValue().stream().allMatch(m -> ungatedPods.contains(m.uid()))) {
                        continue;
                    }
                    List<CompletableFuture<BindResult>> binds = new ArrayList<>();
                    for (Pod m : e.getValue()) {
                        if (h.binder.boundNode(m.uid()) == null) {
                            binds.add(h.schedule(m.withConstraints(NodeConstraints.NONE))); // members wait at the barrier together
                        }
                    }
                    binds.forEach(QueueGateConcurrencyTest::answer);
                    for (Pod m : e.getValue()) {
                        String node = h.binder.boundNode(m.uid());
                        synchronized (cluster) {
                            if (node != null && boundPods.add(m.uid())) {
                                h.seen(m.withConstraints(NodeConstraints.NONE).withNode(node));
                            }
                        }
                    }
                    if (e.getValue().stream().allMatch(m -> boundPods.contains(m.uid()))) {
                        bound.add(name);
                    }
                }
            }
            return null;
        }));
        workers.add(pool.submit(() -> { // jobs finish and go
            while (!stop.get()) {
                for (String name : List.copyOf(bound)) {
                    synchronized (cluster) {
                        if (finished.add(name)) {
                            liveLifted.remove(name); // counted gone first: the core may lift the next one once it is deleted
                            gangs.get(name).forEach(m -> h.scheduler.deletePod(m.uid()));
                            if (finished.size() == GANGS) {
                                ended.countDown();
                            }
                        }
                    }
                }
                Thread.onSpinWait();
            }
            return null;
        }));

        assertThat(created.await(60, TimeUnit.SECONDS)).isTrue();
        ended.await(120, TimeUnit.SECONDS); // a timeout is shown by the assertions below, with what was left
        stop.set(true);
        for (Future<?> w : workers) {
            w.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();

        assertThat(overshoots).as("gangs lifted and not finished beyond the queue's capability").isEmpty();
        StringBuilder left = new StringBuilder();
        for (int i = 0; i < GANGS; i++) {
            var v = h.scheduler.gang(new GangKey("default", "g" + i));
            if (!finished.contains("g" + i) && v != null) {
                left.append("g").append(i).append(everLifted.contains("g" + i) ? " lifted " : " gated ").append(v.state()).append(": ").append(v.why().text()).append('\n');
            }
        }
        assertThat(everLifted).as("every gang lifted in the end; left:\n%s", left).hasSize(GANGS);
        assertThat(finished).as("every gang bound whole and finished").hasSize(GANGS);
        assertThat(h.invariantViolations()).isEmpty();
        assertThat(h.scheduler.gang(new GangKey("default", "g0")) == null
                || h.scheduler.gang(new GangKey("default", "g0")).state() != GangState.UNSCHEDULABLE).isTrue();
    }

    /** The bind's answer, or null when it is held longer than a while (it is asked again later). */
    private static BindResult answer(CompletableFuture<BindResult> bind) {
        try {
            return bind.get(1, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException | InterruptedException | java.util.concurrent.ExecutionException e) {
            return null;
        }
    }

    private static String gangOf(PodId pod) {
        return pod.name().substring(0, pod.name().lastIndexOf('-'));
    }

    private static Pod memberOf(Map<String, List<Pod>> gangs, PodId id) {
        List<Pod> members = gangs.get(gangOf(id));
        return members == null ? null : members.stream().filter(m -> m.uid().equals(id.uid())).findFirst().orElse(null);
    }
}
