package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GateHold;
import dev.muster.core.gang.GateLifter;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The queue-admission gate: a gang behind Muster's gate is lifted only when its queue admits it, in line order, each
 * lift holding its quota; holds keep it gated and name the annotations of the lift; a gate of someone else's is never
 * lifted and such a gang takes nobody's room; a gang waiting behind the gate for a full queue still preempts by
 * priority, and is lifted once room is reserved for it.
 */
class QueueGateTest {
    static final NodeConstraints MUSTERS = gates(QueueGate.NAME);

    static NodeConstraints gates(String... names) {
        return new NodeConstraints(Map.of(), null, List.of(), List.of(names), "");
    }

    /** Records every lift; {@link #apply} shows the pods ungated, as the API server and the informer would. */
    static class Lifts implements GateLifter {
        final List<PodId> lifted = new CopyOnWriteArrayList<>();
        final List<Map<String, String>> annotations = new CopyOnWriteArrayList<>();

        @Override
        public CompletionStage<String> lift(PodId pod, Map<String, String> added) {
            lifted.add(pod);
            annotations.add(added);
            return CompletableFuture.completedFuture(null);
        }

        List<String> names() {
            return lifted.stream().map(PodId::name).toList();
        }
    }

    static SchedulerHarness cluster(QueueGate gate, Evictor evictor, int nodes) {
        SchedulerConfig config = SchedulerConfig.DEFAULT.withQueueGate(gate);
        SchedulerHarness h = evictor == null ? new SchedulerHarness(config) : new SchedulerHarness(config, evictor, DisruptionBudgets.NONE);
        for (int i = 0; i < nodes; i++) {
            h.nodes(node("n" + i, "4", "16Gi"));
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.upsertQueue(queue("research", res("4", "64Gi")));
        h.scheduler.markSynced();
        return h;
    }

    /** A gang of {@code n} members of 2 cpu in {@code queue}, created with {@code gates}, that the cluster shows. */
    static List<Pod> gated(SchedulerHarness h, String name, String queue, int n, int priority, NodeConstraints gates) {
        h.scheduler.upsertPodGroup(podGroup("default", name, n, queue));
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(h.seen(pod(name + "-" + i).gang(name).requests("2", "1Gi").priority(priority).constraints(gates).build()));
        }
        return out;
    }

    /** The pods as the cluster shows them once their gate is gone. */
    static List<Pod> ungated(SchedulerHarness h, List<Pod> pods) {
        List<Pod> out = new ArrayList<>();
        for (Pod p : pods) {
            out.add(h.seen(p.withConstraints(NodeConstraints.NONE)));
        }
        return out;
    }

    /** kube-scheduler schedules every pod; the cluster shows each bound where it went. */
    static void scheduleAll(SchedulerHarness h, List<Pod> pods) {
        List<CompletableFuture<BindResult>> binds = new ArrayList<>();
        for (Pod p : pods) {
            binds.add(h.schedule(p));
        }
        binds.forEach(b -> assertThat(b.join()).isEqualTo(BindResult.BOUND));
        for (Pod p : pods) {
            String node = h.binder.bound().get(p.uid());
            h.seen(p.withNode(node));
        }
    }

    @Test
    void aGangBlockedByItsQueueStaysGatedUntilTheCapabilityIsRaisedThenIsLiftedAndBindsWhole() {
        Lifts lifts = new Lifts();
        SchedulerHarness h = cluster(QueueGate.on(lifts), null, 4);
        List<Pod> first = gated(h, "first", "research", 2, 0, MUSTERS);
        h.ticks(1, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactlyInAnyOrder("first-0", "first-1");
        scheduleAll(h, ungated(h, first));
        List<Pod> second = gated(h, "second", "research", 2, 0, MUSTERS);
        h.ticks(5, Duration.ofMillis(200));

        assertThat(lifts.names()).as("its queue holds its capability: nothing more is lifted").hasSize(2);
        GangKey key = new GangKey("default", "second");
        assertThat(h.scheduler.gang(key).why().text()).contains("waiting for queue research");
        assertThat(h.scheduler.stats().gangsGated()).containsExactly(Map.entry("queue", 1));

        h.scheduler.upsertQueue(queue("research", res("8", "64Gi")));
        h.ticks(1, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactlyInAnyOrder("first-0", "first-1", "second-0", "second-1");
        assertThat(lifts.annotations).allSatisfy(a -> assertThat(a).isEmpty());
        scheduleAll(h, ungated(h, second));
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.BOUND);
        assertThat(h.scheduler.stats().gangsGated()).isEmpty();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void twoGangsTheQueueCanTakeOnlyOneOfAreNotBothLifted() {
        Lifts lifts = new Lifts();
        SchedulerHarness h = cluster(QueueGate.on(lifts), null, 4);
        gated(h, "older", "research", 2, 0, MUSTERS);
        h.clock.advance(Duration.ofSeconds(1));
        gated(h, "younger", "research", 2, 0, MUSTERS);
        h.ticks(3, Duration.ofMillis(200));

        assertThat(lifts.names()).as("the older gang comes first in line; its lift holds the queue's quota")
                .containsExactlyInAnyOrder("older-0", "older-1");
        assertThat(h.scheduler.gang(new GangKey("default", "younger")).why().text()).contains("waiting for queue research", "full for now");
    }

    @Test
    void aLiftedGangThatGoesGivesItsQuotaBack() {
        Lifts lifts = new Lifts();
        SchedulerHarness h = cluster(QueueGate.on(lifts), null, 4);
        List<Pod> older = gated(h, "older", "research", 2, 0, MUSTERS);
        h.clock.advance(Duration.ofSeconds(1));
        gated(h, "younger", "research", 2, 0, MUSTERS);
        h.ticks(3, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactlyInAnyOrder("older-0", "older-1");

        older.forEach(p -> h.scheduler.deletePod(p.uid())); // its Job was deleted before its pods came to kube-scheduler
        h.ticks(1, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactlyInAnyOrder("older-0", "older-1", "younger-0", "younger-1");
    }

    @Test
    void aHoldKeepsAnAdmittedGangGatedAndItsAnnotationsGoWithTheLift() {
        Lifts lifts = new Lifts();
        AtomicReference<String> why = new AtomicReference<>("waiting for nodes");
        GateHold hold = new GateHold() {
            @Override
            public String reason(Gang gang, long now) {
                return why.get();
            }

            @Override
            public Map<String, String> annotations(Gang gang) {
                return Map.of("cluster-autoscaler.kubernetes.io/consume-provisioning-request", gang.key().name());
            }
        };
        SchedulerHarness h = cluster(QueueGate.on(lifts).withHold(hold), null, 4);
        gated(h, "held", "default", 2, 0, MUSTERS);
        h.ticks(3, Duration.ofMillis(200));
        assertThat(lifts.lifted).isEmpty();
        assertThat(h.scheduler.stats().gangsGated()).containsExactly(Map.entry("hold", 1));

        why.set(null);
        h.ticks(1, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactlyInAnyOrder("held-0", "held-1");
        assertThat(lifts.annotations).allSatisfy(a -> assertThat(a)
                .containsExactly(Map.entry("cluster-autoscaler.kubernetes.io/consume-provisioning-request", "held")));
    }

    @Test
    void aMemberCreatedAfterTheLiftIsLiftedAtOnceAndALiftIsNotSentTwice() {
        Lifts lifts = new Lifts();
        SchedulerHarness h = cluster(QueueGate.on(lifts), null, 4);
        h.scheduler.upsertPodGroup(podGroup("default", "late", 2, "default"));
        Pod first = h.seen(pod("late-0").gang("late").requests("2", "1Gi").constraints(MUSTERS).build());
        h.ticks(3, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactly("late-0");

        h.seen(pod("late-1").gang("late").requests("2", "1Gi").constraints(MUSTERS).build());
        h.ticks(1, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactly("late-0", "late-1");
        h.seen(first.withConstraints(NodeConstraints.NONE));
        h.ticks(40, Duration.ofMillis(200)); // late-1 still shows its gate: sent again only after a while
        assertThat(lifts.names().stream().filter("late-1"::equals).count()).isBetween(2L, 3L);
        assertThat(lifts.names().stream().filter("late-0"::equals).count()).isEqualTo(1L);
    }

    @Test
    void aGateOfSomeoneElseIsNeverLiftedAndSuchAGangPreemptsNothing() {
        Lifts lifts = new Lifts();
        Victims evictor = new Victims();
        SchedulerHarness h = cluster(QueueGate.on(lifts), evictor, 2);
        PreemptionTest.running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        gated(h, "foreign", "default", 2, 1000, gates(QueueGate.NAME, "example.com/quota"));
        h.ticks(10, Duration.ofSeconds(5));

        assertThat(lifts.lifted).isEmpty();
        assertThat(evictor.evicted).isEmpty();
        assertThat(h.scheduler.stats().gangsGated()).containsExactly(Map.entry("foreign-gate", 1));
    }

    @Test
    void aGangBehindAGateOfSomeoneElseHoldsNoRoomThatAnotherGangNeeds() {
        Lifts lifts = new Lifts();
        SchedulerHarness h = cluster(QueueGate.on(lifts), null, 2);
        gated(h, "foreign", "default", 1, 0, gates(QueueGate.NAME, "example.com/quota")); // first in line, 2 cpu
        h.ticks(90, Duration.ofSeconds(1)); // waits long enough to be next in line
        List<Pod> train = gated(h, "train", "default", 4, 0, MUSTERS); // 8 cpu: the whole cluster
        h.ticks(3, Duration.ofMillis(200));

        assertThat(lifts.names()).containsExactlyInAnyOrder("train-0", "train-1", "train-2", "train-3");
        List<Pod> ungated = ungated(h, train);
        h.ticks(60, Duration.ofSeconds(1)); // kube-scheduler takes its time (its backoff, say): passes run meanwhile
        assertThat(h.scheduler.gang(new GangKey("default", "foreign")).why().text())
                .isEqualTo("gang default/foreign: waiting for the scheduling gates [example.com/quota] to be removed");
        scheduleAll(h, ungated);
        assertThat(h.scheduler.gang(new GangKey("default", "train")).state()).isEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void withTheGateOffMustersGateIsLeftAloneAndTakesNobodysRoom() {
        Victims evictor = new Victims();
        SchedulerHarness h = cluster(QueueGate.OFF, evictor, 2);
        PreemptionTest.running(h, "low", "default", 4, 0, "n0", "n0", "n1", "n1");
        gated(h, "gated", "default", 2, 1000, MUSTERS);
        h.ticks(10, Duration.ofSeconds(5));
        assertThat(evictor.evicted).isEmpty();
        assertThat(h.scheduler.stats().gangsGated()).isEmpty();
    }

    @Test
    void aGatedGangOfAFullQueuePreemptsByPriorityIsLiftedOnItsReservationAndBindsOnTheRoomFreed() {
        Lifts lifts = new Lifts();
        Victims evictor = new Victims();
        SchedulerHarness h = cluster(QueueGate.on(lifts), evictor, 2);
        h.scheduler.upsertQueue(queue("research", res("8", "64Gi")));
        List<Pod> low = PreemptionTest.running(h, "low", "research", 4, 0, "n0", "n0", "n1", "n1");
        List<Pod> high = gated(h, "high", "research", 2, 1000, MUSTERS);
        h.ticks(1, Duration.ofSeconds(1));
        assertThat(lifts.lifted).as("its queue is full").isEmpty();
        h.ticks(2, Duration.ofSeconds(1));
        assertThat(evictor.evicted).as("a whole lower gang of its queue goes").hasSize(4);
        assertThat(lifts.names()).as("lifted once its room is reserved").containsExactlyInAnyOrder("high-0", "high-1");

        low.forEach(p -> h.scheduler.deletePod(p.uid()));
        h.ticks(1, Duration.ofMillis(200));
        scheduleAll(h, ungated(h, high));
        assertThat(h.scheduler.gang(new GangKey("default", "high")).state()).isEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aClosedQueueKeepsItsGangsGatedAndOpeningItLiftsThem() {
        Lifts lifts = new Lifts();
        SchedulerHarness h = cluster(QueueGate.on(lifts), null, 4);
        h.scheduler.upsertQueue(new QueueSpec("research", QueueState.CLOSED, 1, null, null, null, true));
        gated(h, "g", "research", 2, 0, MUSTERS);
        h.ticks(3, Duration.ofMillis(200));
        assertThat(lifts.lifted).isEmpty();
        assertThat(h.scheduler.gang(new GangKey("default", "g")).why().text()).contains("waiting for queue research");
        h.scheduler.upsertQueue(new QueueSpec("research", QueueState.OPEN, 1, null, null, null, true));
        h.ticks(1, Duration.ofMillis(200));
        assertThat(lifts.names()).containsExactlyInAnyOrder("g-0", "g-1");
    }

    /** Dry runs and evictions are accepted at once; the evicted pods are recorded. */
    static final class Victims implements Evictor {
        final List<String> evicted = new CopyOnWriteArrayList<>();

        @Override
        public CompletionStage<EvictionOutcome> evict(PodId pod, String why) {
            evicted.add(pod.name());
            return CompletableFuture.completedFuture(new EvictionOutcome.Evicted());
        }
    }
}
