package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.BindResult;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.model.Refusal;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.core.stream.SequencedEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Structured refusals, the bind-confirmation window, and bounds on what request input may make the core remember. */
class RefusalsAndBoundsTest {
    private static SchedulerHarness cluster(int nodes, String cpu, String mem) {
        return SchedulerHarness.cluster(nodes, cpu, mem);
    }


    private static List<Pod> members(String pg, int n, String cpu) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(pod(pg + "-" + i).gang(pg).requests(cpu, "1Gi").build());
        }
        return out;
    }

    private static Refusal why(SchedulerHarness h, String pg) {
        return h.scheduler.gang(new GangKey("default", pg)).why();
    }

    @Test
    void eachRefusalCarriesItsCauseThroughStateJournalAndStats() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        h.scheduler.upsertQueue(new QueueSpec("closed", QueueState.CLOSED, 1, null, null, null, true));
        h.scheduler.upsertQueue(queue("small", res("2", "64Gi")));
        h.scheduler.upsertPodGroup(podGroup("default", "big", 3, "default"));          // 3×3 cpu on 2×4 cpu
        h.scheduler.upsertPodGroup(podGroup("default", "shut", 1, "closed"));
        h.scheduler.upsertPodGroup(podGroup("default", "wide", 2, "small"));           // 2×2 cpu > capability 2
        h.scheduler.upsertPodGroup(podGroup("default", "tasks", 2, "default", Map.of("ps", 1)));
        Map<String, List<Pod>> gangs = Map.of("big", members("big", 3, "3"), "shut", members("shut", 1, "1"),
                "wide", members("wide", 2, "2"), "tasks", members("tasks", 2, "1"));
        gangs.values().forEach(ms -> ms.forEach(h.scheduler::upsertPod));
        gangs.values().forEach(ms -> h.scheduler.filter(ms.getFirst(), h.nodeNames));

        assertThat(why(h, "big").cause()).isEqualTo(Refusal.Cause.RESOURCES);
        assertThat(why(h, "big").text()).contains("needs 3×", "fits 2");
        assertThat(why(h, "shut").cause()).isEqualTo(Refusal.Cause.QUEUE_CLOSED);
        assertThat(why(h, "wide").cause()).isEqualTo(Refusal.Cause.QUEUE_CAPABILITY);
        assertThat(why(h, "tasks").cause()).isEqualTo(Refusal.Cause.TASK_MEMBERS_MISSING);
        assertThat(why(h, "tasks").text()).contains("task ps needs 1 members");

        List<AllocationEvent.GangChanged> changes = new ArrayList<>();
        if (h.journal.readAfter(0, 1_000) instanceof AllocationJournal.Read.Events ev) {
            for (SequencedEvent e : ev.events()) {
                if (e.event() instanceof AllocationEvent.GangChanged c && c.state() == GangState.UNSCHEDULABLE) {
                    changes.add(c);
                }
            }
        }
        assertThat(changes).extracting(c -> c.why().cause()).containsExactlyInAnyOrder(Refusal.Cause.RESOURCES,
                Refusal.Cause.QUEUE_CLOSED, Refusal.Cause.QUEUE_CAPABILITY, Refusal.Cause.TASK_MEMBERS_MISSING);
        assertThat(h.scheduler.stats().gangsByCause()).containsEntry(Refusal.Cause.RESOURCES, 1)
                .containsEntry(Refusal.Cause.QUEUE_CLOSED, 1).containsEntry(Refusal.Cause.TASK_MEMBERS_MISSING, 1);
    }

    @Test
    void roomThatFreesUpGoesToTheHeldGangWithTheHigherPriority() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        Pod hog0 = pod("hog-0").requests("4", "1Gi").on("n0").phase(PodPhase.RUNNING).build();
        h.scheduler.upsertPod(hog0);
        h.scheduler.upsertPod(pod("hog-1").requests("4", "1Gi").on("n1").phase(PodPhase.RUNNING).build());
        h.scheduler.upsertPodGroup(podGroup("default", "a-low", 1, "default"));
        h.scheduler.upsertPodGroup(podGroup("default", "z-high", 1, "default"));
        Pod low = pod("a-low-0").gang("a-low").requests("4", "1Gi").priority(0).build();
        Pod high = pod("z-high-0").gang("z-high").requests("4", "1Gi").priority(1000).build();
        h.scheduler.upsertPod(low);
        h.scheduler.upsertPod(high);
        h.scheduler.filter(low, List.of("n0")); // held members pass where kube-scheduler found room (muster's view may lag)
        h.scheduler.filter(high, List.of("n0"));
        CompletableFuture<BindResult> lowBind = h.scheduler.bind(low.id(), "n0");   // held: no room anywhere
        CompletableFuture<BindResult> highBind = h.scheduler.bind(high.id(), "n0"); // held, later and sorting last by name

        h.scheduler.deletePod(hog0.uid()); // room for one of them

        assertThat(highBind).isCompletedWithValueMatching(BindResult::ok);
        assertThat(lowBind).isNotDone();
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void minResourcesMustFitBeforeAnyMemberIsPlanned() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        h.scheduler.upsertPodGroup(new dev.muster.core.model.PodGroupSpec(new GangKey("default", "g"), 1, Map.of(),
                res("16", "1Gi"), "default", "", null)); // asks for 16 cpu up front; the cluster has 8
        Pod m = pod("g-0").gang("g").requests("1", "1Gi").build(); // the member alone would fit
        h.scheduler.upsertPod(m);

        FilterResult f = h.scheduler.filter(m, h.nodeNames);

        assertThat(why(h, "g").cause()).isEqualTo(Refusal.Cause.RESOURCES);
        assertThat(why(h, "g").text()).contains("minResources", "exceed the cluster's free capacity", "short 8 cpu");
        assertThat(h.scheduler.ledger().reservations()).isEmpty();
        assertThat(f.feasible()).isNotEmpty(); // a passing reason: the member passes and its bind is held
    }

    @Test
    void aGangShortBecauseNodesAreOvercommittedSaysSo() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        // another scheduler placed 6 cpu on a 4-cpu node: n0 is overcommitted and takes nothing new
        h.scheduler.upsertPod(pod("intruder").requests("6", "1Gi").on("n0").phase(PodPhase.RUNNING).build());
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
        List<Pod> ms = members("g", 2, "3");
        ms.forEach(h.scheduler::upsertPod);

        h.scheduler.filter(ms.getFirst(), h.nodeNames);

        assertThat(why(h, "g").cause()).isEqualTo(Refusal.Cause.NODES_OVERCOMMITTED);
        assertThat(why(h, "g").text()).contains("fits 1", "1 node that could take members is overcommitted");
    }

    @Test
    void aSuccessfulBindingKeepsItsRoomUntilTheClusterShowsThePodOrItsDeletionHoweverSlowTheInformer() {
        SchedulerHarness h = cluster(1, "4", "16Gi");
        Pod confirmed = pod("confirmed").requests("1", "1Gi").build();
        Pod slow = pod("slow").requests("1", "1Gi").build();
        h.scheduler.upsertPod(confirmed);
        h.scheduler.upsertPod(slow);
        assertThat(h.schedule(confirmed).join().ok()).isTrue();
        assertThat(h.schedule(slow).join().ok()).isTrue();
        h.scheduler.upsertPod(confirmed.withNode("n0").withPhase(PodPhase.RUNNING)); // the informer shows it bound

        // the Binding succeeded, so the pod runs there: a relist that takes minutes must not hand its room to another pod
        h.clock.advance(Duration.ofMinutes(10));
        h.scheduler.expireDue();
        assertThat(h.scheduler.ledger().pods()).extracting(r -> r.pod().name()).containsExactlyInAnyOrder("confirmed", "slow");

        h.scheduler.deletePod(slow.uid()); // what the informer shows at last
        assertThat(h.scheduler.ledger().pods()).extracting(r -> r.pod().name()).containsExactly("confirmed");
        assertThat(h.totals().allocatedByQueue().get("")).isEqualTo(dev.muster.core.testing.Fixtures.req("1", "1Gi"));
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void theBarrierNeverOpensForAWaiterWhosePodIsGone() {
        SchedulerHarness h = cluster(2, "8", "32Gi");
        h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
        List<Pod> ms = members("g", 2, "1");
        ms.forEach(h.scheduler::upsertPod);
        CompletableFuture<BindResult> first = h.schedule(ms.get(0));
        assertThat(first).isNotDone(); // waiting at the barrier
        h.scheduler.upsertPod(ms.get(0).withPhase(PodPhase.FAILED)); // it failed before its gang was whole

        CompletableFuture<BindResult> second = h.schedule(ms.get(1));

        assertThat(first.join().error()).contains("was deleted");
        assertThat(second).isNotDone(); // 1 of 2: the barrier stays shut
        assertThat(h.binder.bound()).isEmpty();
        assertThat(h.scheduler.gang(new GangKey("default", "g")).state()).isNotEqualTo(GangState.BOUND);
        assertThat(h.invariantViolations()).isEmpty();
    }

    @Test
    void anUnresolvedPodGroupIsNotPlannedAndSaysWhyUntilAnUpdateResolvesIt() {
        SchedulerHarness h = cluster(2, "4", "16Gi");
        GangKey key = new GangKey("default", "tpl");
        PodGroupSpec resolved = new PodGroupSpec(key, 2, Map.of(), dev.muster.core.resources.Resources.ZERO, "default", "", null,
                dev.muster.core.model.GangApi.KUBERNETES, null);
        h.scheduler.upsertPodGroup(new PodGroupSpec(key, 2, Map.of(), dev.muster.core.resources.Resources.ZERO, "default", "", null,
                dev.muster.core.model.GangApi.KUBERNETES, null, "spec.podGroupTemplateRef: Workload default/job does not exist"));
        List<Pod> ms = members("tpl", 2, "1");
        ms.forEach(h.scheduler::upsertPod);
        h.scheduler.filter(ms.getFirst(), h.nodeNames);
        assertThat(why(h, "tpl")).isEqualTo(Refusal.of(Refusal.Cause.PODGROUP_UNRESOLVED,
                "gang default/tpl: spec.podGroupTemplateRef: Workload default/job does not exist"));
        assertThat(h.scheduler.gang(key).state()).isEqualTo(GangState.UNSCHEDULABLE);
        assertThat(h.scheduler.gang(key).slotNodes()).isEmpty();

        h.scheduler.upsertPodGroup(resolved);
        h.scheduler.filter(ms.getFirst(), h.nodeNames);
        assertThat(h.scheduler.gang(key).slotNodes()).hasSize(2);
        assertThat(h.invariantViolations()).isEmpty();
    }
}
