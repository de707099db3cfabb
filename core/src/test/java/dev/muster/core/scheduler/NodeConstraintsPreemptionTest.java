package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Node;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.NodeConstraints.Operator;
import dev.muster.core.model.NodeConstraints.Requirement;
import dev.muster.core.model.NodeConstraints.Term;
import dev.muster.core.model.NodeConstraints.Toleration;
import dev.muster.core.model.NodeTaint;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.testing.RecordingEvictor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A preemptor's own node constraints decide where it may take room, and the verbs never place a pod where they forbid:
 * nodeSelector, required node affinity and untolerated taints as kube-scheduler filters them, scheduling gates, and
 * constraints only kube-scheduler judges (placed only on nodes it offered).
 *
 * <p>The cluster: four 4-cpu nodes n0..n3 (zone a: n0, n1; zone b: n2, n3); gang {@code old} runs on n0, n0, n1, n1 and
 * gang {@code new}, started later, on n2, n2, n3, n3 — a preemptor without constraints takes {@code new}.
 */
class NodeConstraintsPreemptionTest {
    private static final String HOSTNAME = "kubernetes.io/hostname";
    private final RecordingEvictor evictor = new RecordingEvictor();

    private SchedulerHarness cluster(List<NodeTaint> taintsOnZoneB) {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withPreemption(PreemptionSettings.DEFAULT), evictor,
                DisruptionBudgets.NONE);
        for (int i = 0; i < 4; i++) {
            String zone = i < 2 ? "a" : "b";
            h.nodes(new Node("n" + i, dev.muster.core.testing.Fixtures.node("n" + i, "4", "16Gi").allocatable(), true, Map.of(HOSTNAME, "n" + i, "zone", zone),
                    zone.equals("b") ? taintsOnZoneB : List.of(), false));
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        return h;
    }

    private SchedulerHarness fullCluster(List<NodeTaint> taintsOnZoneB) {
        SchedulerHarness h = cluster(taintsOnZoneB);
        running(h, "old", "n0", "n0", "n1", "n1");
        h.clock.advance(Duration.ofSeconds(10));
        running(h, "new", "n2", "n2", "n3", "n3");
        return h;
    }

    private static void running(SchedulerHarness h, String name, String... perNode) {
        h.scheduler.upsertPodGroup(podGroup("default", name, perNode.length, "default"));
        for (int i = 0; i < perNode.length; i++) {
            h.scheduler.upsertPod(pod(name + "-" + i).gang(name).requests("2", "1Gi").on(perNode[i]).build());
        }
    }

    /** A priority-1000 gang of {@code n} × 2 cpu with {@code c}; kube-scheduler found no node for it. */
    private static List<Pod> arrives(SchedulerHarness h, String name, int n, NodeConstraints c) {
        h.scheduler.upsertPodGroup(podGroup("default", name, n, "default"));
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pod p = pod(name + "-" + i).gang(name).requests("2", "1Gi").priority(1000).constraints(c).build();
            h.scheduler.upsertPod(p);
            out.add(p);
        }
        h.scheduler.filter(out.getFirst(), List.of());
        return out;
    }

    private static NodeConstraints selector(String key, String value) {
        return new NodeConstraints(Map.of(key, value), null, List.of(), List.of(), "");
    }

    private List<String> evicted() {
        return evictor.asked();
    }

    private static final List<String> OLD = List.of("old-0", "old-1", "old-2", "old-3");
    private static final List<String> NEW = List.of("new-0", "new-1", "new-2", "new-3");

    @Test
    void withoutConstraintsTheLatestStartedGangGoes() {
        SchedulerHarness h = fullCluster(List.of());
        arrives(h, "big", 2, NodeConstraints.NONE);
        h.scheduler.expireDue();
        assertThat(evicted()).as(h.scheduler.preemptionAdvice(new GangKey("default", "big")).toString()).containsExactlyInAnyOrderElementsOf(NEW);
    }

    @Test
    void aNodeSelectorPreemptorEvictsOnlyOnItsNode() {
        SchedulerHarness h = fullCluster(List.of());
        arrives(h, "big", 2, selector(HOSTNAME, "n0"));

        h.scheduler.expireDue();

        assertThat(evicted()).containsExactlyInAnyOrderElementsOf(OLD);
        assertThat(h.scheduler.gang(new GangKey("default", "big")).state()).isEqualTo(GangState.RESERVED);
        assertThat(h.scheduler.gang(new GangKey("default", "big")).slotNodes()).containsOnly("n0");
    }

    @Test
    void aNodeSelectorPreemptorWhoseNodeCannotHoldItEvictsNothingAndSaysWhy() {
        SchedulerHarness h = fullCluster(List.of());
        arrives(h, "big", 3, selector(HOSTNAME, "n0")); // 6 cpu on a 4-cpu node

        h.scheduler.expireDue();

        assertThat(evicted()).isEmpty();
        PreemptionAdvice advice = h.scheduler.preemptionAdvice(new GangKey("default", "big"));
        assertThat(advice).isInstanceOf(PreemptionAdvice.CannotRun.class);
        assertThat(((PreemptionAdvice.CannotRun) advice).why()).contains("it would not fit")
                .contains("all the nodes its members may use, even empty, hold too little: its 3 members to place need at least 6 cpu")
                .contains("they hold 4 cpu");
    }

    @Test
    void anUntoleratedTaintKeepsThePreemptorAndItsEvictionsOffTheTaintedNodes() {
        SchedulerHarness h = fullCluster(List.of(new NodeTaint("dedicated", "batch", NodeTaint.NO_SCHEDULE)));
        arrives(h, "big", 2, NodeConstraints.NONE);

        h.scheduler.expireDue();

        assertThat(evicted()).containsExactlyInAnyOrderElementsOf(OLD);
        assertThat(h.scheduler.gang(new GangKey("default", "big")).slotNodes()).allMatch(n -> n.equals("n0") || n.equals("n1"));
    }

    @Test
    void aToleratedTaintIsNoObstacle() {
        SchedulerHarness h = fullCluster(List.of(new NodeTaint("dedicated", "batch", NodeTaint.NO_EXECUTE)));
        arrives(h, "big", 2, new NodeConstraints(Map.of(), null, List.of(new Toleration("dedicated", "Equal", "batch", "")),
                List.of(), ""));
        h.scheduler.expireDue();
        assertThat(evicted()).containsExactlyInAnyOrderElementsOf(NEW);
    }

    @Test
    void aRequiredNodeAffinityPreemptorEvictsOnlyInsideIt() {
        SchedulerHarness h = fullCluster(List.of());
        arrives(h, "big", 2, new NodeConstraints(Map.of(),
                List.of(new Term(List.of(new Requirement("zone", Operator.IN, List.of("a"))), List.of())), List.of(), List.of(), ""));

        h.scheduler.expireDue();

        assertThat(evicted()).containsExactlyInAnyOrderElementsOf(OLD);
    }

    @Test
    void aGatedGangEvictsNothingAndTheDryRunSaysWhy() {
        SchedulerHarness h = fullCluster(List.of());
        arrives(h, "big", 2, new NodeConstraints(Map.of(), null, List.of(), List.of("example.com/quota"), ""));

        h.scheduler.expireDue();

        assertThat(evicted()).isEmpty();
        PreemptionAdvice advice = h.scheduler.preemptionAdvice(new GangKey("default", "big"));
        assertThat(((PreemptionAdvice.CannotRun) advice).why()).contains("may not preempt").contains("has scheduling gates [example.com/quota]");
    }

    @Test
    void aGangWithConstraintsOnlyKubeSchedulerJudgesPreemptsOnlyOnNodesItOffered() {
        SchedulerHarness h = fullCluster(List.of());
        NodeConstraints spread = new NodeConstraints(Map.of(), null, List.of(), List.of(), "inter-pod anti-affinity");
        List<Pod> big = arrives(h, "big", 2, spread);

        h.scheduler.expireDue();
        assertThat(evicted()).as("never offered a node: nothing is evicted for it").isEmpty();
        assertThat(((PreemptionAdvice.CannotRun) h.scheduler.preemptionAdvice(new GangKey("default", "big"))).why())
                .contains("inter-pod anti-affinity, which only kube-scheduler judges");

        // kube-scheduler's preemption finds its filters pass on n0 and n1 once lower-priority pods are gone
        for (Pod m : big) {
            h.scheduler.preempt(m, Map.of("n0", new Victims(List.of(), 0), "n1", new Victims(List.of(), 0)));
        }
        h.clock.advance(Duration.ofSeconds(10));
        h.scheduler.expireDue();

        assertThat(evicted()).containsExactlyInAnyOrderElementsOf(OLD);
    }

    @Test
    void nodesKubeSchedulerOffersBeforeMusterHasSeenThePodStillCountOnceItIsSeen() {
        SchedulerHarness h = fullCluster(List.of());
        NodeConstraints ports = new NodeConstraints(Map.of(), null, List.of(), List.of(), "host ports");
        h.scheduler.upsertPodGroup(podGroup("default", "big", 2, "default"));
        List<Pod> big = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            Pod seen = pod("big-" + i).gang("big").requests("2", "1Gi").priority(1000).constraints(ports).build();
            // kube-scheduler's informer was first: the preempt verb comes before Muster's informer saw the pod, and
            // the pod in its request tells nothing of its constraints (the wire carries requests and metadata only)
            Pod onTheWire = pod("big-" + i).uid(seen.uid()).gang("big").requests("2", "1Gi").priority(1000).build();
            assertThat(h.scheduler.preempt(onTheWire, Map.of("n0", new Victims(List.of(), 0), "n1", new Victims(List.of(), 0)))).isEmpty();
            big.add(seen);
        }
        for (Pod m : big) {
            h.scheduler.upsertPod(m);
        }
        h.clock.advance(Duration.ofSeconds(10));
        h.scheduler.expireDue();

        assertThat(evicted()).as(h.scheduler.preemptionAdvice(new GangKey("default", "big")).toString()).containsExactlyInAnyOrderElementsOf(OLD);
    }

    @Test
    void aGangPlacesEachMemberOnlyWhereItsConstraintsAdmit() {
        SchedulerHarness h = cluster(List.of(new NodeTaint("dedicated", "batch", NodeTaint.NO_SCHEDULE)));
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
        Pod a = h.seen(pod("g-0").gang("g").requests("2", "1Gi").constraints(selector(HOSTNAME, "n1")).build());
        Pod b = h.seen(pod("g-1").gang("g").requests("2", "1Gi").constraints(selector(HOSTNAME, "n1")).build());

        FilterResult f = h.scheduler.filter(a, h.nodeNames);

        assertThat(f.feasible()).containsExactly("n1");
        assertThat(h.scheduler.gang(new GangKey("default", "g")).slotNodes()).containsOnly("n1");
        assertThat(f.unresolvable()).containsKeys("n0", "n2", "n3");
        assertThat(h.scheduler.filter(b, h.nodeNames).feasible()).containsExactly("n1");
    }

    @Test
    void theFilterNeverPassesAndTheBindNeverBindsWhereThePodsOwnConstraintsForbid() {
        SchedulerHarness h = cluster(List.of(new NodeTaint("dedicated", "batch", NodeTaint.NO_SCHEDULE)));
        Pod p = h.seen(pod("web").requests("1", "1Gi").constraints(selector(HOSTNAME, "n1")).build());

        // a caller that sends a node list of its own choosing
        FilterResult f = h.scheduler.filter(p, List.of("n0"));
        assertThat(f.feasible()).isEmpty();
        assertThat(f.unresolvable()).containsEntry("n0", "pod " + p.id() + ": node n0 does not match the pod's nodeSelector"
                + " (kubernetes.io/hostname=n1)");
        BindResult bound = h.scheduler.bind(p.id(), "n0").join();
        assertThat(bound.error()).isEqualTo("pod " + p.id() + " may not be bound to node n0: node n0 does not match the pod's"
                + " nodeSelector (kubernetes.io/hostname=n1)");

        Pod untolerating = h.seen(pod("batch").requests("1", "1Gi").build());
        assertThat(h.scheduler.filter(untolerating, List.of("n2", "n0")).feasible()).containsExactly("n0");
        assertThat(h.scheduler.bind(untolerating.id(), "n2").join().error())
                .contains("node n2 has taint dedicated=batch:NoSchedule that the pod does not tolerate");
        assertThat(h.binder.toString()).doesNotContain("n2");
        assertThat(h.invariantViolations()).isEmpty();
    }
}
