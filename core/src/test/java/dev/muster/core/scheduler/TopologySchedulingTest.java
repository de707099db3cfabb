package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Topology constraints through the whole core: reservation in one rack, slot moves that stay in it, refusals. */
class TopologySchedulingTest {
    static final GangKey KEY = new GangKey("default", "pg");

    /** Racks ra and rb, two 8-cpu nodes each. */
    static SchedulerHarness racks() {
        SchedulerHarness h = new SchedulerHarness(SchedulerConfig.DEFAULT.withTopologyLevels(TopologyLevels.of(List.of("rack", "kubernetes.io/hostname"))));
        for (String rack : List.of("ra", "rb")) {
            for (int n = 0; n < 2; n++) {
                String name = rack + "-n" + n;
                h.nodes(node(name, "8", "32Gi").withLabels(Map.of("rack", rack, "kubernetes.io/hostname", name)));
            }
        }
        h.scheduler.upsertQueue(queue("default"));
        h.scheduler.markSynced();
        return h;
    }

    static PodGroupSpec gang(int minMember, TopologyRequest t) {
        return new PodGroupSpec(KEY, minMember, Map.of(), Resources.ZERO, "default", "", null, null, t);
    }

    static List<Pod> members(SchedulerHarness h, int n) {
        List<Pod> pods = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            Pod p = pod("pg-" + i).gang("pg").requests("4", "1Gi").build();
            h.scheduler.upsertPod(p);
            pods.add(p);
        }
        return pods;
    }

    @Test
    void aRequiredRackGangIsReservedAndBoundInsideOneRack() {
        SchedulerHarness h = racks();
        h.scheduler.upsertPodGroup(gang(4, TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "rack")));
        List<CompletableFuture<BindResult>> binds = members(h, 4).stream().map(h::schedule).toList();
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.binder.bound().values()).hasSize(4).allMatch(n -> n.startsWith("ra-"));
        assertThat(h.scheduler.gang(KEY).state()).isEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void slotsMoveOnlyInsideTheRequiredRack() {
        SchedulerHarness h = racks();
        h.scheduler.upsertPodGroup(gang(2, TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "rack")));
        List<Pod> pods = members(h, 2);
        FilterResult first = h.scheduler.filter(pods.get(0), h.nodeNames);
        assertThat(first.feasible()).containsExactly("ra-n0"); // binpack: both slots on ra-n0

        // kube-scheduler's sample holds only nodes of the other rack: no slot moves there
        FilterResult outside = h.scheduler.filter(pods.get(1), List.of("rb-n0", "rb-n1"));
        assertThat(outside.feasible()).isEmpty();
        assertThat(outside.failed().get("rb-n0")).contains("inside its required topology domain rack=ra");

        // a sample with a free node of the same rack: the slot moves there
        FilterResult inside = h.scheduler.filter(pods.get(1), List.of("rb-n0", "ra-n1"));
        assertThat(inside.feasible()).containsExactly("ra-n1");
        assertThat(h.scheduler.gang(KEY).slotNodes()).containsExactlyInAnyOrder("ra-n0", "ra-n1");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aNodeRelabelledOutOfTheRequiredRackGivesItsSlotsToANodeInside() {
        SchedulerHarness h = racks();
        h.scheduler.upsertPodGroup(gang(2, TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "rack")));
        List<Pod> pods = members(h, 2);
        h.scheduler.filter(pods.get(0), h.nodeNames);
        assertThat(h.scheduler.gang(KEY).slotNodes()).containsExactly("ra-n0", "ra-n0");

        h.scheduler.upsertNode(node("ra-n0", "8", "32Gi").withLabels(Map.of("rack", "rb", "kubernetes.io/hostname", "ra-n0")));
        assertThat(h.scheduler.gang(KEY).slotNodes()).containsExactly("ra-n1", "ra-n1");
        assertThat(h.invariantViolations()).isEmpty();

        // the last node of the rack leaves it too: the reservation is lost, with the reason, and planned again
        h.scheduler.upsertNode(node("ra-n1", "8", "32Gi").withLabels(Map.of("rack", "rc", "kubernetes.io/hostname", "ra-n1")));
        assertThat(h.scheduler.gang(KEY).why().text()).contains("left the required topology domain rack=ra and no node inside it has room");
        List<CompletableFuture<BindResult>> binds = pods.stream().map(h::schedule).toList();
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aPreferredRackGangLandsInOneRackButItsSlotsMayMoveOut() {
        SchedulerHarness h = racks();
        h.scheduler.upsertPodGroup(gang(2, TopologyRequest.byKey(TopologyRequest.Mode.PREFERRED, "rack")));
        List<Pod> pods = members(h, 2);
        assertThat(h.scheduler.filter(pods.get(0), h.nodeNames).feasible()).containsExactly("ra-n0");
        assertThat(h.scheduler.filter(pods.get(1), List.of("rb-n0")).feasible()).containsExactly("rb-n0");
        assertThat(h.scheduler.gang(KEY).slotNodes()).containsExactlyInAnyOrder("ra-n0", "rb-n0");
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void aGangThatFitsNoSingleRackWaitsWithAReasonNamingTheBestRack() {
        SchedulerHarness h = racks();
        h.scheduler.upsertPodGroup(gang(5, TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "rack")));
        List<Pod> pods = members(h, 5);
        h.scheduler.filter(pods.get(0), h.nodeNames);
        var view = h.scheduler.gang(KEY);
        assertThat(view.state()).isEqualTo(GangState.UNSCHEDULABLE);
        assertThat(view.why().cause()).isEqualTo(Refusal.Cause.TOPOLOGY);
        assertThat(view.why().text()).isEqualTo("gang default/pg: required topology rack: no single domain has room; best ra fits 4 of 5"
                + " members (needs 5×(4 cpu, 1Gi memory), fits 4); the cluster as a whole has room for them");
        assertThat(h.scheduler.ledger().reservations()).isEmpty();
    }

    @Test
    void aPreferredRackGangSpillsOverWhenNoRackFits() {
        SchedulerHarness h = racks();
        h.scheduler.upsertPodGroup(gang(5, TopologyRequest.byKey(TopologyRequest.Mode.PREFERRED, "rack")));
        List<CompletableFuture<BindResult>> binds = members(h, 5).stream().map(h::schedule).toList();
        assertThat(binds).allMatch(f -> f.join().ok());
        assertThat(h.scheduler.gang(KEY).state()).isEqualTo(GangState.BOUND);
    }

    @Test
    void aRequiredLevelThatIsNotConfiguredIsRefusedByName() {
        SchedulerHarness h = racks();
        h.scheduler.upsertPodGroup(gang(1, TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "topology.kubernetes.io/zone")));
        h.scheduler.filter(members(h, 1).getFirst(), h.nodeNames);
        assertThat(h.scheduler.gang(KEY).why().text())
                .isEqualTo("gang default/pg: required topology level topology.kubernetes.io/zone is not configured (levels: rack > kubernetes.io/hostname)");
    }
}
