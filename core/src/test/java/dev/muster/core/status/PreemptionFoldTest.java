package dev.muster.core.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangState;
import dev.muster.core.model.PodPhase;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.stream.AllocationEvent.PreemptionDecided;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a preemption decision does to the fold: victims' conditions, Events on both sides, per-queue tallies. */
class PreemptionFoldTest {
    private final List<GangNote> notes = new ArrayList<>();
    private final FoldDriver d = FoldDriver.notingTo(notes::add);

    /** A gang of {@code members} bound and running in {@code queue}. */
    private void running(String gang, int members, int minMember, String queue) {
        d.queue(queue).podGroup(gang, minMember, queue);
        d.pods(gang, members, PodPhase.PENDING, false).gang(gang, GangState.BOUND, "").pods(gang, members, PodPhase.RUNNING, true);
    }

    private void waiting(String gang, int members, String queue) {
        d.queue(queue).podGroup(gang, members, queue).pods(gang, members, PodPhase.PENDING, false);
    }

    /** Pods {@code gang-from .. gang-(to-1)} as victims in {@code queue}. */
    private static List<Victim> of(String gang, String queue, int from, int to) {
        return PreemptionNotesTest.victims(gang, queue, to).subList(from, to).stream()
                .map(v -> new Victim(new dev.muster.core.model.PodId(v.pod().uid(), FoldDriver.NS, v.pod().name()),
                        gang == null ? null : FoldDriver.key(gang), v.queue(), v.priority(), v.node(), v.resources()))
                .toList();
    }

    private void decide(PreemptionKind kind, String preemptorQueue, List<Victim> victims) {
        d.send(new PreemptionDecided(FoldDriver.key("big"), preemptorQueue, 1000, kind, victims, 2));
    }

    private PodGroupCondition preempted(String gang) {
        return d.pg(gang).condition(PodGroupCondition.PREEMPTED);
    }

    @Test
    void aSinglePodsDecisionMarksItsVictimGangAndTellsNoPodGroupOfTheSinglePod() {
        running("low", 3, 3, "a");
        d.send(new PreemptionDecided(PreemptionDecided.singlePod(FoldDriver.NS, "vip"), "", 1000, PreemptionKind.PRIORITY,
                of("low", "a", 0, 3), 1));

        PodGroupCondition c = preempted("low");
        assertThat(c.status()).isEqualTo(PodGroupCondition.TRUE);
        assertThat(c.reason()).isEqualTo(PodGroupCondition.PRIORITY_PREEMPTION);
        assertThat(c.message()).isEqualTo("preempted by pod ns/vip (priority 1000) to place 1 pod; evicting 3 of its pods");
        assertThat(notes).containsExactly(new GangNote(FoldDriver.key("low"), "Preempted", true, "Preempt", c.message()));
        assertThat(d.fold.queue("a").preemptions().preemptedPods()).as("its queue counts what priority took").isEqualTo(3);

        d.deletePod("low-0").deletePod("low-1").deletePod("low-2");
        d.pods("low", 3, PodPhase.PENDING, false);
        assertThat(preempted("low").status()).as("evicted, waiting").isEqualTo(PodGroupCondition.TRUE);
        d.pods("low", 3, PodPhase.RUNNING, true);
        assertThat(preempted("low").status()).as("whole again").isEqualTo(PodGroupCondition.FALSE);
    }

    @Test
    void aGangEvictedWholeIsMarkedUntilItRunsWholeAgainAndBothSidesGetAnEvent() {
        running("low", 3, 3, "a");
        waiting("big", 2, "a");
        Instant decidedAt = d.clock.instant();
        decide(PreemptionKind.PRIORITY, "a", of("low", "a", 0, 3));

        PodGroupCondition c = preempted("low");
        assertThat(c.status()).isEqualTo(PodGroupCondition.TRUE);
        assertThat(c.reason()).isEqualTo(PodGroupCondition.PRIORITY_PREEMPTION);
        assertThat(c.message()).isEqualTo("preempted by ns/big (priority 1000) to place 2 pods; evicting 3 of its pods");
        assertThat(c.lastTransitionTime()).isEqualTo(decidedAt);
        assertThat(notes).containsExactly(
                new GangNote(FoldDriver.key("low"), "Preempted", true, "Preempt", c.message()),
                new GangNote(FoldDriver.key("big"), "Preempting", false, "Preempt", "preempting 1 gang (3 pods) on 2 nodes"));

        d.clock.advance(Duration.ofSeconds(5));
        d.pod("low-0", "low", PodPhase.RUNNING, true).gang("low", GangState.BOUND, "");
        assertThat(preempted("low")).as("kept across later inputs, with its time").isEqualTo(c);

        d.deletePod("low-0").deletePod("low-1").deletePod("low-2");
        assertThat(preempted("low").status()).as("evicted, not running again").isEqualTo(PodGroupCondition.TRUE);
        d.pods("low", 3, PodPhase.PENDING, false);
        assertThat(preempted("low").status()).isEqualTo(PodGroupCondition.TRUE);

        d.clock.advance(Duration.ofSeconds(5));
        d.pods("low", 3, PodPhase.RUNNING, true);
        PodGroupCondition after = preempted("low");
        assertThat(after.status()).isEqualTo(PodGroupCondition.FALSE);
        assertThat(after.reason()).isEqualTo(PodGroupCondition.GANG_WHOLE);
        assertThat(after.message()).isEqualTo("whole again since: " + c.message());
        assertThat(after.lastTransitionTime()).isEqualTo(decidedAt.plusSeconds(10));
        assertThat(notes).as("no Event for settling: the condition says it").hasSize(2);
    }

    @Test
    void aGangWhoseEvictedMembersExitedWithSuccessDidNotRunAgain() {
        running("low", 3, 3, "a");
        decide(PreemptionKind.PRIORITY, "a", of("low", "a", 0, 3));
        // evicted Job pods: first seen leaving (no longer members), then finished with exit 0 before they are deleted
        for (int i = 0; i < 3; i++) {
            d.fold.observePod(new PodObservation("low-" + i, null, PodPhase.RUNNING, true, "", "ns/low-" + i));
        }
        d.pods("low", 3, PodPhase.SUCCEEDED, true);
        assertThat(preempted("low").status()).as("all its members succeeded, none runs: not whole again").isEqualTo(PodGroupCondition.TRUE);
    }

    @Test
    void aGangThatLosesOnlySurplusMembersIsMarkedUntilTheyAreGone() {
        running("low", 4, 2, "a");
        waiting("big", 2, "a");
        decide(PreemptionKind.PRIORITY, "a", of("low", "a", 2, 4));
        assertThat(preempted("low").status()).isEqualTo(PodGroupCondition.TRUE);
        assertThat(preempted("low").message()).endsWith("evicting 2 of its pods");

        d.deletePod("low-2");
        assertThat(preempted("low").status()).as("one victim still holds its place").isEqualTo(PodGroupCondition.TRUE);
        d.deletePod("low-3");
        assertThat(preempted("low").status()).isEqualTo(PodGroupCondition.FALSE);
    }

    @Test
    void whenThePreemptorGivesUpTheVictimsNotEvictedAreNoLongerWaitedFor() {
        running("low", 3, 3, "a");
        waiting("big", 2, "a");
        d.gang("big", GangState.RESERVED, "preempting ns/low (3 pods)");
        decide(PreemptionKind.PRIORITY, "a", of("low", "a", 0, 3));
        d.gang("big", GangState.RESERVED, "preempting ns/low (3 pods): 3 still terminating");
        assertThat(preempted("low").status()).as("still reserved: the victims are awaited").isEqualTo(PodGroupCondition.TRUE);

        d.gang("big", GangState.UNSCHEDULABLE, "gang ns/big: preemption abandoned, a PodDisruptionBudget refused; planning again");
        assertThat(preempted("low").status()).as("nothing was evicted: it runs whole").isEqualTo(PodGroupCondition.FALSE);
    }

    @Test
    void aDecisionThatArrivesAfterItsVictimsAreGoneIsStillToldThenSettles() {
        running("low", 4, 2, "a");
        d.deletePod("low-3");
        decide(PreemptionKind.PRIORITY, "a", of("low", "a", 3, 4));
        assertThat(preempted("low").status()).isEqualTo(PodGroupCondition.TRUE);
        d.pod("low-0", "low", PodPhase.RUNNING, true).gang("low", GangState.BOUND, "again");
        assertThat(preempted("low").status()).isEqualTo(PodGroupCondition.FALSE);
    }

    @Test
    void afterARestartTheConditionTheObjectShowsIsKeptUntilTheGangIsWhole() {
        PodGroupCondition shown = new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.TRUE, PodGroupCondition.QUEUE_RECLAIM,
                "reclaimed by queue b for ns/big (priority 5) to place 2 pods; evicting 3 of its pods", Instant.parse("2024-12-31T23:00:00Z"));
        d.queue("a").podGroup("low", 3, "a", new PodGroupStatus(PodGroupPhase.PENDING, List.of(shown), 0, 0, 0));
        assertThat(preempted("low")).isEqualTo(shown);

        d.pods("low", 3, PodPhase.RUNNING, true);
        assertThat(preempted("low").status()).isEqualTo(PodGroupCondition.FALSE);
    }

    @Test
    void aPodGroupWithoutAPreemptionHasNoSuchCondition() {
        running("low", 3, 3, "a");
        assertThat(preempted("low")).isNull();
    }

    @Test
    void queuesCountWhatReclaimTookAndGaveAndWhatPriorityPreempted() {
        running("low", 3, 3, "a");
        running("other", 2, 2, "a");
        waiting("big", 2, "b");
        d.listener.take();
        decide(PreemptionKind.RECLAIM, "b", of("low", "a", 0, 3));
        decide(PreemptionKind.PRIORITY, "a", List.of(of("other", "a", 0, 2).get(0), of(null, "", 0, 1).get(0)));

        QueuePreemptions a = d.fold.queue("a").preemptions();
        assertThat(a.lostToReclaimPods()).isEqualTo(3);
        assertThat(a.lostToReclaim()).isEqualTo(FoldDriver.cpu(3000));
        assertThat(a.wonByReclaimPods()).isZero();
        assertThat(a.preemptedPods()).as("single pods belong to no queue").isEqualTo(1);
        assertThat(a.preempted()).isEqualTo(FoldDriver.cpu(1000));
        QueuePreemptions b = d.fold.queue("b").preemptions();
        assertThat(b.wonByReclaimPods()).isEqualTo(3);
        assertThat(b.wonByReclaim()).isEqualTo(FoldDriver.cpu(3000));
        assertThat(b.lostToReclaimPods()).isZero();
        assertThat(d.listener.take()).contains("changed " + StatusKey.queue("a"), "changed " + StatusKey.queue("b"));

        d.resync();
        assertThat(d.fold.queue("b").preemptions().wonByReclaimPods()).as("a snapshot does not reset the counts").isEqualTo(3);
        d.deleteQueue("b").queue("b");
        assertThat(d.fold.queue("b").preemptions()).as("a queue deleted and made again starts from nothing").isEqualTo(QueuePreemptions.NONE);
    }
}
