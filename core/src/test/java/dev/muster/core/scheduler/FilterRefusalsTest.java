package dev.muster.core.scheduler;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.pod;
import static dev.muster.core.testing.Fixtures.podGroup;
import static dev.muster.core.testing.Fixtures.queue;
import static dev.muster.core.testing.Fixtures.req;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.ledger.TopologyLevels;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every reason Muster's filter may have to turn a pod away, one row each: what the filter answers, and the sentence a
 * person reads. kube-scheduler parks a pod Muster refused until a cluster event it watches (any pod or node change),
 * a failed bind of a pod it had assumed, or its 5-minute flush; a failed bind of the pod itself is retried from its
 * backoff. So a refusal whose cause may pass <em>without</em> such an event — Muster's own view catching up — must
 * not leave the pod without a node: such a pod passes, and its bind is held while Muster re-checks. A refusal is kept
 * where passing would take room others are kept (a gang's reservation) or other queues could use (a full queue), or
 * where its cause passes only with a change of the pod or of Muster's objects. What un-parks a kept refusal: a pod or
 * node event, a failed bind, and — for what kube-scheduler never hears of (a Queue created or edited, room or queue
 * quota a reservation gives back) — Muster itself, which wakes the pod ({@link PodWaker}); each kept row applies that
 * change and checks the pod is woken (docs/architecture.md, "Why no member is refused for a passing reason").
 */
class FilterRefusalsTest {
    /** What the filter does with the pod. */
    enum Answer {
        /** Passes on the candidates; a gang member's bind is held while Muster re-checks. */
        PASSES_AND_HOLDS,
        /** Passes (kube-scheduler's view, which found room, decides where Muster's may be behind). */
        PASSES,
        /** Refused on every candidate: parked until a cluster event kube-scheduler watches, or a failed bind. */
        REFUSED,
        /** Refused as unresolvable: only a change of the pod, or of an object, resolves it (then as REFUSED). */
        UNRESOLVABLE
    }

    /** What kube-scheduler sent (the pod) and what the filter answered. */
    record Filtered(Pod pod, FilterResult result) {}

    /**
     * For a pod that stays refused: the change kube-scheduler never hears of that may admit it, applied to the books, and
     * the reason Muster gives when it has kube-scheduler try the pod again ({@link PodWaker}). Null: no such change (only
     * an edit of the pod, a pod event, resolves it).
     */
    record Wake(String why, java.util.function.Consumer<SchedulerHarness> change) {}

    record Case(String name, Answer answer, String text, Function<SchedulerHarness, Filtered> scenario, Wake wake) {
        Case(String name, Answer answer, String text, Function<SchedulerHarness, Filtered> scenario) {
            this(name, answer, text, scenario, null);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static final GangKey G = new GangKey("default", "g");

    /** The other gang's reservation ends at its deadline; none of its members had a bind waiting, so no bind fails. */
    private static final Wake PAST_THE_DEADLINE = new Wake("reserved room was given back", h -> {
        h.clock.advance(SchedulerConfig.DEFAULT.gangDeadline().plusSeconds(1));
        h.scheduler.expireDue();
    });

    static Stream<Arguments> causes() {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("the pod names two gangs: only its edit resolves it",
                Answer.UNRESOLVABLE, "pod default/torn: pod names two different groups: \"a\" (annotation scheduling.k8s.io/group-name)"
                + " and \"b\" (label scheduling.x-k8s.io/pod-group); a pod can belong to one gang only", h -> {
            GangMembership.Membership m = GangMembership.membershipOf("default", Map.of(GangMembership.GROUP_NAME, "a"),
                    Map.of(GangMembership.POD_GROUP_LABEL, "b"), null);
            Pod base = pod("torn").requests("1", "1Gi").build();
            Pod torn = new Pod(base.id(), base.resourceVersion(), base.request(), m.gang(), "", 0, null, base.phase(), m.conflict());
            return new Filtered(torn, h.scheduler.filter(h.seen(torn), h.nodeNames));
        }));
        cases.add(new Case("PODGROUP_MISSING: the PodGroup may arrive at any moment", Answer.PASSES_AND_HOLDS,
                "podgroup default/g does not exist (yet)", h -> filterFirst(h, "", 1, "1")));
        cases.add(new Case("PODGROUP_UNRESOLVED: its Workload may arrive at any moment", Answer.PASSES_AND_HOLDS,
                "gang default/g: Workload default/w does not exist", h -> {
            h.scheduler.upsertPodGroup(new PodGroupSpec(G, 1, Map.of(), dev.muster.core.resources.Resources.ZERO, "default", "", null,
                    dev.muster.core.model.GangApi.KUBERNETES, null, "Workload default/w does not exist"));
            return filterFirst(h, "", 1, "1");
        }));
        cases.add(new Case("MEMBERS_MISSING: the missing members get provisional slots, the first members pass",
                Answer.PASSES, "3 slots held for 60s (1/3 pods exist)", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "g", 3, "default"));
            return filterFirst(h, "", 1, "1");
        }));
        cases.add(new Case("TASK_MEMBERS_MISSING, the task's pods not created yet: reserved, and the gang says what it waits for",
                Answer.PASSES, "gang default/g: waiting for pods of task ps (0/1 pods exist); 2 slots held for 60s (1/2 pods exist)", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default", Map.of("ps", 1)));
            return filterFirst(h, "worker", 1, "1");
        }));
        cases.add(new Case("TASK_MEMBERS_MISSING, every member exists but the task has too few: a new pod may arrive at any moment",
                Answer.PASSES_AND_HOLDS, "gang default/g: task ps needs 1 members, 0 exist", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default", Map.of("ps", 1)));
            return filterFirst(h, "worker", 2, "1");
        }));
        cases.add(new Case("RESOURCES: pods elsewhere may finish at any moment, and Muster may see it later than kube-scheduler",
                Answer.PASSES_AND_HOLDS, "gang default/g: needs 3×(3 cpu, 1Gi memory), fits 2", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "g", 3, "default"));
            return filterFirst(h, "", 3, "3");
        }));
        cases.add(new Case("NODES_OVERCOMMITTED: the node may be restored, and kube-scheduler may act on it before Muster sees it",
                Answer.PASSES_AND_HOLDS, "gang default/g: needs 2×(3 cpu, 1Gi memory), fits 1; 1 node that could take members is"
                + " overcommitted (pods use more than allocatable)", h -> {
            h.scheduler.upsertPod(pod("intruder").requests("6", "1Gi").on("n0").phase(PodPhase.RUNNING).build());
            h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
            return filterFirst(h, "", 2, "3"); // every candidate passes, the overcommitted n0 too
        }));
        cases.add(new Case("TOPOLOGY: no rack has room now; pods may finish at any moment", Answer.PASSES_AND_HOLDS,
                "gang default/g: required topology rack: no schedulable node has the label rack", h -> {
            h.scheduler.upsertPodGroup(new PodGroupSpec(G, 3, Map.of(), dev.muster.core.resources.Resources.ZERO, "default", "",
                    null, dev.muster.core.model.GangApi.VOLCANO, TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "rack"), ""));
            return filterFirst(h, "", 3, "3");
        }));
        cases.add(new Case("BACKING_OFF: the backoff ends with time, no event", Answer.PASSES_AND_HOLDS,
                "gang default/g: deadline passed with 1/2 members bound or waiting", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default", Duration.ofSeconds(5)));
            List<Pod> ms = members("", 2, "1");
            ms.forEach(h.scheduler::upsertPod);
            h.scheduler.bind(ms.getFirst().id(), h.scheduler.filter(ms.getFirst(), h.nodeNames).feasible().getFirst());
            h.clock.advance(Duration.ofSeconds(6));
            h.scheduler.expireDue(); // the deadline passes with 1/2: the gang backs off
            return new Filtered(ms.get(1), h.scheduler.filter(ms.get(1), h.nodeNames));
        }));
        cases.add(new Case("QUEUE_FULL: kept — holding would take room in kube-scheduler's view other queues could use; un-parked by its"
                + " queue's pods finishing (pod events), and woken by Muster when the Queue is edited or its reservations give quota back",
                Answer.REFUSED, "gang default/g: queue small is full for now: it holds 2 cpu, 1Gi memory of its capability 2 cpu, 64Gi memory,"
                + " and the gang needs 1 cpu, 1Gi memory more (cpu by 1 over)", h -> {
            h.scheduler.upsertQueue(queue("small", req("2", "64Gi")));
            h.scheduler.upsertPod(pod("other").requests("2", "1Gi").on("n1").phase(PodPhase.RUNNING).build());
            h.scheduler.upsertPodGroup(podGroup("default", "other-g", 1, "small"));
            h.scheduler.upsertPod(pod("o-0").gang("other-g").requests("2", "1Gi").on("n1").phase(PodPhase.RUNNING).build());
            h.scheduler.upsertPodGroup(podGroup("default", "g", 1, "small"));
            return filterFirst(h, "", 1, "1");
        }, new Wake("queue small changed", h -> h.scheduler.upsertQueue(queue("small", req("4", "64Gi"))))));
        cases.add(new Case("QUEUE_CAPABILITY: the gang alone exceeds its queue's capability; a Queue edit is no event kube-scheduler"
                + " watches: Muster wakes the pod when the Queue is edited", Answer.UNRESOLVABLE,
                "gang default/g: queue small's capability 2 cpu, 64Gi memory is less than the gang alone needs, 4 cpu, 2Gi memory"
                + " (cpu by 2 over)", h -> {
            h.scheduler.upsertQueue(queue("small", req("2", "64Gi")));
            h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "small"));
            return filterFirst(h, "", 2, "2");
        }, new Wake("queue small changed", h -> h.scheduler.upsertQueue(queue("small", req("8", "64Gi"))))));
        cases.add(new Case("QUEUE_CLOSED: opening it is no event kube-scheduler watches: Muster wakes the pod when the Queue is edited",
                Answer.UNRESOLVABLE, "gang default/g: queue shut is Closed and admits no new gangs", h -> {
            h.scheduler.upsertQueue(new QueueSpec("shut", QueueState.CLOSED, 1, null, null, null, true));
            h.scheduler.upsertPodGroup(podGroup("default", "g", 1, "shut"));
            return filterFirst(h, "", 1, "1");
        }, new Wake("queue shut changed", h -> h.scheduler.upsertQueue(new QueueSpec("shut", QueueState.OPEN, 1, null, null, null, true)))));
        cases.add(new Case("QUEUE_MISSING: creating it is no event kube-scheduler watches: Muster wakes the pod when the Queue is created",
                Answer.UNRESOLVABLE, "gang default/g: queue nowhere does not exist", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "g", 1, "nowhere"));
            return filterFirst(h, "", 1, "1");
        }, new Wake("queue nowhere changed", h -> h.scheduler.upsertQueue(queue("nowhere")))));
        cases.add(new Case("NO_SLOT: no candidate has a slot or room for one in Muster's view — which may be behind kube-scheduler's",
                Answer.PASSES_AND_HOLDS, "gang default/g holds no slot on the node kube-scheduler chose and muster sees no room to move"
                + " one there", h -> {
            h.nodes(node("full", "4", "16Gi"));
            h.scheduler.upsertPod(pod("hog").requests("4", "16Gi").on("full").build());
            h.scheduler.upsertPodGroup(podGroup("default", "g", 2, "default"));
            List<Pod> ms = members("", 2, "4");
            ms.forEach(h.scheduler::upsertPod);
            h.scheduler.filter(ms.get(0), List.of("n0", "n1"));
            return new Filtered(ms.get(1), h.scheduler.filter(ms.get(1), List.of("full")));
        }));
        cases.add(new Case("a member of a gang that does not fit, on room other gangs hold: kept — passing would put it, in"
                + " kube-scheduler's view, on the room of the gang it is held for, and starve that gang; un-parked when the reservation"
                + " ends: its waiting binds fail at the deadline (kube-scheduler requeues after a failed bind) or bind, and Muster wakes"
                + " the pod whenever reserved room is given back (here: a deadline with no bind waiting)", Answer.REFUSED,
                "gang default/g: needs 1×(2 cpu, 1Gi memory), fits 0; room on this node is reserved for other gangs", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "other", 2, "default"));
            Pod o0 = pod("other-0").gang("other").requests("4", "1Gi").build();
            h.scheduler.upsertPod(o0);
            h.scheduler.upsertPod(pod("other-1").gang("other").requests("4", "1Gi").build());
            h.scheduler.filter(o0, h.nodeNames); // reserves n0 and n1 whole
            h.scheduler.upsertPodGroup(podGroup("default", "g", 1, "default"));
            return filterFirst(h, "", 1, "2");
        }, PAST_THE_DEADLINE));
        cases.add(new Case("single pod, a node Muster has not seen yet", Answer.PASSES, "", h -> single(h, "1", "brand-new")));
        cases.add(new Case("single pod, no room in Muster's view where kube-scheduler found some (a delete Muster has not seen)",
                Answer.PASSES, "", h -> {
            h.scheduler.upsertPod(pod("going").requests("4", "1Gi").on("n0").phase(PodPhase.RUNNING).build());
            return single(h, "2", "n0");
        }));
        cases.add(new Case("single pod, room only gangs hold: kept — passing would break the gang's whole reservation; un-parked when"
                + " the reservation ends in failed binds (ReservationEndE2eTest) or bound ones; woken by Muster whenever reserved room"
                + " is given back",
                Answer.REFUSED, "insufficient cpu (after gang reservations): room on this node is reserved for gangs", h -> {
            h.scheduler.upsertPodGroup(podGroup("default", "other", 2, "default"));
            Pod o0 = h.seen(pod("other-0").gang("other").requests("4", "1Gi").build());
            h.scheduler.filter(o0, h.nodeNames); // reserves n0 and n1 whole
            return single(h, "2", "n0");
        }, PAST_THE_DEADLINE));
        return cases.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("causes")
    void eachRefusalCauseEitherPassesAndHoldsOrIsKeptForAReasonThatEndsWithAnEvent(Case c) {
        SchedulerHarness h = SchedulerHarness.cluster(new SchedulerConfig(SchedulerConfig.DEFAULT.policy(), SchedulerConfig.DEFAULT.gangDeadline(),
                SchedulerConfig.DEFAULT.backoff(), SchedulerConfig.DEFAULT.admissionHold(), SchedulerConfig.DEFAULT.schedulerName(),
                TopologyLevels.of(List.of("rack")), SchedulerConfig.DEFAULT_SET_ASIDE_AFTER, true), 2, "4", "16Gi");
        Filtered f = c.scenario().apply(h);
        FilterResult r = f.result();
        // what a person reads: for a refusal, the filter's reason (kube-scheduler's FailedScheduling event on the pod);
        // for a pod that passes, its gang's reason (the PodGroup condition) or, once its hold ends, its bind's error
        String said = r.feasible().isEmpty() ? refusal(r) : said(h, r);
        switch (c.answer()) {
            case PASSES -> assertThat(r.feasible()).as(said).isNotEmpty();
            case PASSES_AND_HOLDS -> {
                assertThat(r.feasible()).as(said).isNotEmpty();
                // the bind on kube-scheduler's node is held while Muster re-checks, and fails with the reason when the hold ends
                java.util.concurrent.CompletableFuture<dev.muster.core.gang.BindResult> bind = h.scheduler.bind(f.pod().id(), r.feasible().getFirst());
                assertThat(bind).isNotDone();
                h.clock.advance(h.scheduler.config().admissionHold().plusSeconds(1));
                h.scheduler.expireDue();
                if (bind.isDone()) {
                    said = bind.join().error();
                } else { // the cause passed meanwhile (a backoff ended): the gang was admitted and the bind waits at its barrier
                    assertThat(h.scheduler.stats().waitingBinds()).isEqualTo(1);
                }
            }
            case REFUSED -> {
                assertThat(r.feasible()).isEmpty();
                assertThat(r.unresolvable()).isEmpty();
            }
            case UNRESOLVABLE -> {
                assertThat(r.feasible()).isEmpty();
                assertThat(r.unresolvable()).isNotEmpty();
            }
        }
        if (c.wake() != null) {
            // parked by kube-scheduler: the change that may admit it reaches kube-scheduler as a wake of this very pod
            assertThat(h.woken).as("woken before the change").doesNotContain(f.pod().id() + ": " + c.wake().why());
            c.wake().change().accept(h);
            assertThat(h.woken).containsOnlyOnce(f.pod().id() + ": " + c.wake().why());
        } else if (r.feasible().isEmpty()) {
            assertThat(c.answer()).as("a refusal no change of Muster's books resolves: only the pod's edit").isEqualTo(Answer.UNRESOLVABLE);
        }
        if (c.text().isEmpty()) {
            assertThat(said).isEmpty();
        } else {
            assertThat(said).isEqualTo(c.text());
        }
        assertThat(h.invariantViolations()).isEmpty();
    }

    private static String refusal(FilterResult r) {
        return !r.unresolvable().isEmpty() ? r.unresolvable().values().iterator().next() : r.failed().values().iterator().next();
    }

    /** The sentence a person reads: the gang's reason (its PodGroup condition), else the filter's reason for a node. */
    private static String said(SchedulerHarness h, FilterResult r) {
        GangView g = h.scheduler.gang(G);
        if (g != null && !g.why().text().isEmpty()) {
            return g.why().text();
        }
        if (!r.unresolvable().isEmpty()) {
            return r.unresolvable().values().iterator().next();
        }
        return r.failed().isEmpty() ? "" : r.failed().values().iterator().next();
    }

    private static List<Pod> members(String task, int n, String cpu) {
        List<Pod> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(pod("g-" + i).gang("g").task(task).requests(cpu, "1Gi").build());
        }
        return out;
    }

    /** {@code n} members of gang g, all known; the first one filtered on every node. */
    private static Filtered filterFirst(SchedulerHarness h, String task, int n, String cpu) {
        List<Pod> ms = members(task, n, cpu);
        ms.forEach(h.scheduler::upsertPod);
        return new Filtered(ms.getFirst(), h.scheduler.filter(ms.getFirst(), h.nodeNames));
    }

    private static Filtered single(SchedulerHarness h, String cpu, String node) {
        Pod web = h.seen(pod("web").requests(cpu, "1Gi").build());
        return new Filtered(web, h.scheduler.filter(web, List.of(node)));
    }
}
