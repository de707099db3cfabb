package dev.muster.core.status;

import static dev.muster.core.status.FoldDriver.cpu;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StatusFoldingTest {
    private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

    private static Arguments pgCase(String name, Consumer<FoldDriver> steps, PodGroupPhase phase, int running, int succeeded,
                                    int failed, List<String> conditions) {
        return Arguments.of(Named.of(name, steps), phase, running, succeeded, failed, conditions);
    }

    /** Each case: a PodGroup "pg" (minMember 3, queue "q") and the steps; the expected status. */
    static Stream<Arguments> podGroupCases() {
        return Stream.of(
                pgCase("observed alone: pending, no conditions", d -> {}, PodGroupPhase.PENDING, 0, 0, 0, List.of()),
                pgCase("members created, gang waiting", d -> d.pods("pg", 3, PodPhase.PENDING, false).gang("pg", GangState.WAITING, "3/3 pods exist"),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of()),
                pgCase("admitted: inqueue", d -> d.pods("pg", 3, PodPhase.PENDING, false).gang("pg", GangState.ADMITTED, ""),
                        PodGroupPhase.INQUEUE, 0, 0, 0, List.of()),
                pgCase("reserved: inqueue", d -> d.pods("pg", 3, PodPhase.PENDING, false).gang("pg", GangState.RESERVED, ""),
                        PodGroupPhase.INQUEUE, 0, 0, 0, List.of()),
                pgCase("bound, pods starting: running and scheduled", d -> d.pods("pg", 3, PodPhase.PENDING, true).gang("pg", GangState.BOUND, ""),
                        PodGroupPhase.RUNNING, 0, 0, 0, List.of("Scheduled=True GangBound")),
                pgCase("pods running: counts", d -> d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true),
                        PodGroupPhase.RUNNING, 3, 0, 0, List.of("Scheduled=True GangBound")),
                pgCase("one succeeded, two running", d -> d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true)
                                .pod("pg-0", "pg", PodPhase.SUCCEEDED, true),
                        PodGroupPhase.RUNNING, 2, 1, 0, List.of("Scheduled=True GangBound")),
                pgCase("all finished: completed", d -> d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true)
                                .pods("pg", 2, PodPhase.SUCCEEDED, true).pod("pg-2", "pg", PodPhase.FAILED, true),
                        PodGroupPhase.COMPLETED, 0, 2, 1, List.of("Scheduled=True GangBound")),
                pgCase("completed, then pods deleted: still completed", d -> d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true)
                                .pods("pg", 3, PodPhase.SUCCEEDED, true).deletePod("pg-0").deletePod("pg-1").deletePod("pg-2"),
                        PodGroupPhase.COMPLETED, 0, 0, 0, List.of("Scheduled=True GangBound")),
                pgCase("pods vanish mid-run: unknown, and no longer scheduled (1 of 3 bound is not a gang)",
                        d -> d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true).deletePod("pg-0").deletePod("pg-1"),
                        PodGroupPhase.UNKNOWN, 1, 0, 0, List.of()),
                pgCase("a member deleted as the barrier opened: never GangBound, NotEnoughTasks",
                        d -> d.pods("pg", 3, PodPhase.PENDING, false).gang("pg", GangState.RESERVED, "3 members binding together")
                                .pods("pg", 2, PodPhase.PENDING, true).deletePod("pg-2")
                                .gang("pg", GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.BIND_FAILED, "only 2/3 members could be bound")),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of("Unschedulable=True NotEnoughTasks: only 2/3 members could be bound")),
                pgCase("a task short of its minTaskMember: NotEnoughPodsOfTask", d -> d.pods("pg", 3, PodPhase.PENDING, false)
                                .gang("pg", GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.TASK_MEMBERS_MISSING, "task ps needs 1 members, 0 exist")),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of("Unschedulable=True NotEnoughPodsOfTask: task ps needs 1 members, 0 exist")),
                pgCase("refused by its queue: NotInqueueable", d -> d.pods("pg", 3, PodPhase.PENDING, false)
                                .gang("pg", GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.QUEUE_CAPABILITY, "queue q: capability would be exceeded")),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of("Unschedulable=True NotInqueueable: queue q: capability would be exceeded")),
                pgCase("unschedulable with all members: not enough resources", d -> d.pods("pg", 3, PodPhase.PENDING, false)
                                .gang("pg", GangState.UNSCHEDULABLE, "needs 3×(4 cpu, 16Gi), fits 2"),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of("Unschedulable=True NotEnoughResources: needs 3×(4 cpu, 16Gi), fits 2")),
                pgCase("unschedulable with too few members: not enough tasks", d -> d.pods("pg", 2, PodPhase.PENDING, false)
                                .gang("pg", GangState.UNSCHEDULABLE, "gang ns/pg: 2/3 pods exist"),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of("Unschedulable=True NotEnoughTasks: gang ns/pg: 2/3 pods exist")),
                pgCase("reservation expired", d -> d.pods("pg", 3, PodPhase.PENDING, false).gang("pg", GangState.RESERVED, "")
                                .gang("pg", GangState.EXPIRED, "deadline 60s passed with 2/3 bound"),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of("Unschedulable=True NotEnoughResources: deadline 60s passed with 2/3 bound")),
                pgCase("backed off without a reason gets a default message", d -> d.pods("pg", 3, PodPhase.PENDING, false)
                                .gang("pg", GangState.BACKED_OFF, ""),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of("Unschedulable=True NotEnoughResources: backing off after a failed attempt")),
                pgCase("unschedulable then bound: only scheduled remains", d -> d.pods("pg", 3, PodPhase.PENDING, false)
                                .gang("pg", GangState.UNSCHEDULABLE, "fits 2").gang("pg", GangState.RESERVED, "")
                                .gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true),
                        PodGroupPhase.RUNNING, 3, 0, 0, List.of("Scheduled=True GangBound")),
                pgCase("pods of other gangs and single pods do not count", d -> d.pods("other", 3, PodPhase.RUNNING, true)
                                .pod("single", null, PodPhase.RUNNING, true),
                        PodGroupPhase.PENDING, 0, 0, 0, List.of()),
                pgCase("a pod observed twice counts once", d -> d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true)
                                .pods("pg", 3, PodPhase.RUNNING, true),
                        PodGroupPhase.RUNNING, 3, 0, 0, List.of("Scheduled=True GangBound")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("podGroupCases")
    void podGroupStatus(Consumer<FoldDriver> steps, PodGroupPhase phase, int running, int succeeded, int failed, List<String> conditions) {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 3, "q");
        steps.accept(d);
        PodGroupStatus s = d.pg("pg");
        assertThat(s.phase()).isEqualTo(phase);
        assertThat(List.of(s.running(), s.succeeded(), s.failed())).containsExactly(running, succeeded, failed);
        assertThat(s.conditions()).extracting(StatusFoldingTest::describe).containsExactlyElementsOf(conditions);
    }

    private static String describe(PodGroupCondition c) {
        return c.type() + "=" + c.status() + " " + c.reason() + (c.type().equals(PodGroupCondition.SCHEDULED) ? "" : ": " + c.message());
    }

    private static Arguments queueCase(String name, Consumer<FoldDriver> steps, QueueStatus expected) {
        return Arguments.of(Named.of(name, steps), expected);
    }

    private static QueueStatus qs(QueueState state, int pending, int inqueue, int running, int unknown, int completed, Resources allocated) {
        return new QueueStatus(state, pending, inqueue, running, unknown, completed, allocated);
    }

    /** Each case starts with an open queue "q". */
    static Stream<Arguments> queueCases() {
        return Stream.of(
                queueCase("empty open queue", d -> {}, qs(QueueState.OPEN, 0, 0, 0, 0, 0, Resources.ZERO)),
                queueCase("podgroups counted by phase", d -> d
                                .podGroup("a", 1, "q")
                                .podGroup("b", 1, "q").pods("b", 1, PodPhase.PENDING, false).gang("b", GangState.ADMITTED, "")
                                .podGroup("c", 1, "q").pods("c", 1, PodPhase.RUNNING, true)
                                .podGroup("d", 1, "q").pods("d", 1, PodPhase.RUNNING, true).deletePod("d-0")
                                .podGroup("e", 1, "q").pods("e", 1, PodPhase.SUCCEEDED, true)
                                .podGroup("other", 1, "elsewhere"),
                        qs(QueueState.OPEN, 1, 1, 1, 1, 1, Resources.ZERO)),
                queueCase("allocated sums allocations minus releases", d -> d
                                .allocate("p1", "a", "q", cpu(1000)).allocate("p2", "a", "q", cpu(500)).allocate("p3", null, "", cpu(250))
                                .allocate("p4", "b", "elsewhere", cpu(100)).release("p1", "a", "q", cpu(1000)),
                        qs(QueueState.OPEN, 0, 0, 0, 0, 0, cpu(500))),
                queueCase("closed with a running podgroup: closing", d -> d.queue("q", QueueState.CLOSED)
                                .podGroup("a", 1, "q").pods("a", 1, PodPhase.RUNNING, true),
                        qs(QueueState.CLOSING, 0, 0, 1, 0, 0, Resources.ZERO)),
                queueCase("closed with a pending podgroup: closing", d -> d.queue("q", QueueState.CLOSED).podGroup("a", 1, "q"),
                        qs(QueueState.CLOSING, 1, 0, 0, 0, 0, Resources.ZERO)),
                queueCase("closing until the last podgroup completes, then closed", d -> d.queue("q", QueueState.CLOSED)
                                .podGroup("a", 1, "q").pods("a", 1, PodPhase.RUNNING, true).pod("a-0", "a", PodPhase.SUCCEEDED, true),
                        qs(QueueState.CLOSED, 0, 0, 0, 0, 1, Resources.ZERO)),
                queueCase("closing until the last podgroup is deleted, then closed", d -> d.queue("q", QueueState.CLOSED)
                                .podGroup("a", 1, "q").pods("a", 1, PodPhase.RUNNING, true).deletePodGroup("a"),
                        qs(QueueState.CLOSED, 0, 0, 0, 0, 0, Resources.ZERO)),
                queueCase("a podgroup moved to another queue leaves the counts", d -> d
                                .podGroup("a", 1, "q").podGroup("a", 1, "elsewhere"),
                        qs(QueueState.OPEN, 0, 0, 0, 0, 0, Resources.ZERO)),
                queueCase("unknown spec state stays unknown", d -> d.queue("q", QueueState.UNKNOWN),
                        qs(QueueState.UNKNOWN, 0, 0, 0, 0, 0, Resources.ZERO)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queueCases")
    void queueStatus(Consumer<FoldDriver> steps, QueueStatus expected) {
        FoldDriver d = new FoldDriver().queue("q");
        steps.accept(d);
        assertThat(d.q("q")).isEqualTo(expected);
    }

    @Test
    void allocatedFromSnapshotThenDeltas() {
        FoldDriver d = new FoldDriver().queue("q");
        d.allocate("p1", "a", "q", cpu(1000)).allocate("p2", "a", "q", cpu(2000)).resync();
        assertThat(d.q("q").allocated()).isEqualTo(cpu(3000));
        d.release("p1", "a", "q", cpu(1000)).allocate("p3", "b", "q", cpu(250));
        assertThat(d.q("q").allocated()).isEqualTo(cpu(2250));
    }

    @Test
    void allocationsForAQueueObservedLaterApplyWhenItAppears() {
        FoldDriver d = new FoldDriver();
        d.allocate("p1", "a", "late", cpu(1000));
        assertThat(d.q("late")).isNull();
        d.queue("late");
        assertThat(d.q("late").allocated()).isEqualTo(cpu(1000));
    }

    @Test
    void deletedPodGroupHasNoStatusAndLeavesItsQueue() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 1, "q").pods("pg", 1, PodPhase.RUNNING, true);
        d.listener.take();
        d.deletePodGroup("pg");
        assertThat(d.pg("pg")).isNull();
        assertThat(d.q("q").running()).isZero();
        assertThat(d.listener.take()).containsExactly("changed queue q", "removed podgroup ns/pg");
        assertThat(d.fold.objectCount()).isEqualTo(1);
    }

    @Test
    void deletedQueueHasNoStatusButItsPodGroupsKeepTheirs() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 1, "q");
        d.listener.take();
        d.deleteQueue("q");
        assertThat(d.q("q")).isNull();
        assertThat(d.fold.queue("q")).isNull();
        assertThat(d.pg("pg").phase()).isEqualTo(PodGroupPhase.PENDING);
        assertThat(d.listener.take()).containsExactly("removed queue q");
    }

    @Test
    void deletedObjectsAreForgottenOnceTheirPodsAreGone() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 1, "q").pods("pg", 2, PodPhase.RUNNING, true);
        d.deletePodGroup("pg").deletePod("pg-0").deletePod("pg-1").deleteQueue("q");
        StatusFolding.Stats s = d.fold.stats();
        assertThat(List.of(s.queues(), s.podGroups(), s.queueRecords(), s.gangRecords(), s.memberPods())).containsOnly(0);
    }

    @Test
    void scheduledCountsBoundAndFinishedMembersAndOccupiedByNamesTheFirstMembersOwners() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 3, "q");
        d.fold.observePod(new PodObservation("pg-0", new dev.muster.core.model.GangKey("ns", "pg"), PodPhase.PENDING, false, ""));
        d.fold.observePod(new PodObservation("pg-1", new dev.muster.core.model.GangKey("ns", "pg"), PodPhase.RUNNING, true, "ns/job"));
        d.fold.observePod(new PodObservation("pg-2", new dev.muster.core.model.GangKey("ns", "pg"), PodPhase.SUCCEEDED, true, "ns/other"));
        assertThat(d.pg("pg").scheduled()).as("one running, one finished; the waiting one is not scheduled").isEqualTo(2);
        assertThat(d.pg("pg").occupiedBy()).isEqualTo("ns/job");
        d.pod("pg-0", "pg", PodPhase.PENDING, true);
        assertThat(d.pg("pg").scheduled()).isEqualTo(3);
    }

    @Test
    void listenerHearsOnlyRealChanges() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 2, "q");
        assertThat(d.listener.take()).containsExactly("changed queue q", "changed queue q", "changed podgroup ns/pg");
        d.pod("pg-0", "pg", PodPhase.PENDING, false);
        assertThat(d.listener.take()).as("a waiting pod changes no written field").isEmpty();
        d.pod("pg-0", "pg", PodPhase.PENDING, false).queue("q");
        assertThat(d.listener.take()).as("repeated observations").isEmpty();
        d.pod("pg-0", "pg", PodPhase.RUNNING, true);
        assertThat(d.listener.take()).containsExactly("changed podgroup ns/pg");
    }

    @Test
    void conditionKeepsItsTransitionTimeWhileItsStatusHolds() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 3, "q").pods("pg", 3, PodPhase.PENDING, false);
        d.gang("pg", GangState.UNSCHEDULABLE, "fits 2");
        assertThat(d.pg("pg").condition(PodGroupCondition.UNSCHEDULABLE).lastTransitionTime()).isEqualTo(T0);
        d.clock.advance(Duration.ofSeconds(30));
        d.gang("pg", GangState.UNSCHEDULABLE, "fits 1");
        PodGroupCondition c = d.pg("pg").condition(PodGroupCondition.UNSCHEDULABLE);
        assertThat(c.message()).isEqualTo("fits 1");
        assertThat(c.lastTransitionTime()).as("a new message is not a transition").isEqualTo(T0);
        d.clock.advance(Duration.ofMillis(1500));
        d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true);
        assertThat(d.pg("pg").condition(PodGroupCondition.SCHEDULED).lastTransitionTime())
                .as("whole seconds, as the API stores them").isEqualTo(T0.plusSeconds(31));
    }

    @Test
    void observedStatusSeedsPhaseAndTransitionTimes() {
        Instant earlier = Instant.parse("2024-12-31T23:00:00Z");
        PodGroupCondition scheduled = new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE,
                PodGroupCondition.GANG_BOUND, "at least 3 members bound together", earlier);
        PodGroupStatus observed = new PodGroupStatus(PodGroupPhase.COMPLETED, List.of(scheduled), 0, 0, 0, 0, "", scheduled);
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 3, "q", observed);
        assertThat(d.pg("pg")).as("a completed group whose pods are gone stays completed after a restart").isEqualTo(observed);
        assertThat(d.q("q").completed()).isEqualTo(1);
    }

    @Test
    void theFirstScheduledConditionStaysWhenMembersAreLostAndTheGangIsRefusedAgain() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 3, "q").pods("pg", 3, PodPhase.PENDING, false);
        d.gang("pg", GangState.UNSCHEDULABLE, "fits 2");
        assertThat(d.pg("pg").initiallyScheduled()).as("never scheduled yet").isNull();
        d.clock.advance(Duration.ofSeconds(10));
        d.gang("pg", GangState.BOUND, "").pods("pg", 3, PodPhase.RUNNING, true);
        PodGroupCondition first = d.pg("pg").initiallyScheduled();
        assertThat(first).isEqualTo(new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE, PodGroupCondition.GANG_BOUND,
                "at least 3 members bound together", T0.plusSeconds(10)));

        d.clock.advance(Duration.ofSeconds(50));
        d.deletePod("pg-0").deletePod("pg-1").pods("pg", 1, PodPhase.PENDING, false)
                .gang("pg", GangState.UNSCHEDULABLE, "gang ns/pg: needs 3×(1 cpu), fits 1");
        PodGroupStatus after = d.pg("pg");
        assertThat(after.condition(PodGroupCondition.SCHEDULED)).as("no longer a gang of 3 bound").isNull();
        assertThat(after.condition(PodGroupCondition.UNSCHEDULABLE)).isNotNull();
        assertThat(after.initiallyScheduled()).as("the first time stays, whatever happens later").isEqualTo(first);
    }

    @Test
    void anObservedInitialScheduleIsKeptEvenIfTheGangIsNotBoundNow() {
        Instant earlier = Instant.parse("2024-12-31T23:00:00Z");
        PodGroupCondition scheduled = new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE, "Scheduled",
                "at least 3 members bound together", earlier);
        PodGroupStatus observed = new PodGroupStatus(PodGroupPhase.PENDING, List.of(scheduled), 0, 0, 0, 0, "", scheduled);
        FoldDriver d = new FoldDriver().queue("q").podGroup("pg", 3, "q", observed).pods("pg", 1, PodPhase.PENDING, false)
                .gang("pg", GangState.UNSCHEDULABLE, "gang ns/pg: 1/3 pods exist");
        assertThat(d.pg("pg").initiallyScheduled()).isEqualTo(scheduled);
    }

    @Test
    void repeatedEventsAreNotCountedTwice() {
        FoldDriver d = new FoldDriver().queue("q").allocate("p1", "a", "q", cpu(1000));
        d.fold.onEvent(new dev.muster.core.stream.SequencedEvent(d.sequence(), 0,
                new dev.muster.core.stream.AllocationEvent.PodAllocated(new dev.muster.core.model.PodId("p1", "ns", "p1"),
                        FoldDriver.key("a"), "q", "node-1", cpu(1000))));
        assertThat(d.q("q").allocated()).isEqualTo(cpu(1000));
        assertThat(d.fold.stats().duplicateEvents()).isEqualTo(1);
    }

    @Test
    void reservationsAreCountedPerQueueForTheView() {
        FoldDriver d = new FoldDriver().queue("q").podGroup("a", 1, "q").podGroup("b", 1, "q");
        d.gang("a", GangState.RESERVED, "").gang("b", GangState.RESERVED, "").gang("a", GangState.BOUND, "");
        assertThat(d.fold.queue("q").reservations()).isEqualTo(1);
        d.resync();
        assertThat(d.fold.queue("q").reservations()).isEqualTo(1);
        d.gang("b", GangState.EXPIRED, "deadline");
        assertThat(d.fold.queue("q").reservations()).isZero();
    }
}
