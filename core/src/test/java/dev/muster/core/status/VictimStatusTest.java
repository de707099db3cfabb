package dev.muster.core.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangState;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.stream.AllocationEvent.PreemptionDecided;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The status of a gang whose members a preemption evicted and whose controller (a Job) makes them again: it waits, it
 * has not finished. Pods are told as the controller's informers tell them: an evicted member first leaves its gang
 * (being deleted, not finished), then shows once more as Failed when its kubelet has stopped it, then is gone.
 */
class VictimStatusTest {
    private final List<GangShortfall> crossings = new java.util.ArrayList<>();
    private final FoldDriver d = new FoldDriver(crossings::add);

    private void runningJob(String gang, int members) {
        d.queue("a").podGroup(gang, members, "a");
        d.pods(gang, members, PodPhase.PENDING, false).gang(gang, GangState.BOUND, "").pods(gang, members, PodPhase.RUNNING, true);
    }

    private void decideEvicting(String gang, int members) {
        List<Victim> victims = PreemptionNotesTest.victims(gang, "a", members).stream()
                .map(v -> new Victim(new dev.muster.core.model.PodId(v.pod().uid(), FoldDriver.NS, v.pod().name()),
                        FoldDriver.key(gang), v.queue(), v.priority(), v.node(), v.resources()))
                .toList();
        d.send(new PreemptionDecided(FoldDriver.key("big"), "a", 1000, PreemptionKind.PRIORITY, victims, 2));
    }

    private void leaving(String uid) {
        d.fold.observePod(new PodObservation(uid, null, PodPhase.RUNNING, true, "", FoldDriver.NS + "/" + uid));
    }

    /** The Job's replacement pods, not yet placed: {@code gang-r0 ..}. */
    private void replacements(String gang, int n) {
        for (int i = 0; i < n; i++) {
            d.pod(gang + "-r" + i, gang, PodPhase.PENDING, false);
        }
    }

    private void assertWaiting(String gang, String step) {
        PodGroupStatus s = d.pg(gang);
        assertThat(s.phase()).as(step + ": phase").isIn(PodGroupPhase.PENDING, PodGroupPhase.INQUEUE);
        assertThat(isTrue(s, PodGroupCondition.SCHEDULED)).as(step + ": Scheduled=True while its members wait").isFalse();
        QueueStatus q = d.q("a");
        assertThat(q.pending() + q.inqueue()).as(step + ": the queue counts it as waiting").isEqualTo(1);
        assertThat(q.completed()).as(step + ": nor as completed").isZero();
    }

    private static boolean isTrue(PodGroupStatus s, String type) {
        PodGroupCondition c = s.condition(type);
        return c != null && PodGroupCondition.TRUE.equals(c.status());
    }

    @Test
    void aJobGangEvictedWholeWaitsUntilItRunsAgainNeverCompleted() {
        runningJob("low", 4);
        Instant scheduledAt = d.pg("low").condition(PodGroupCondition.SCHEDULED).lastTransitionTime();
        d.clock.advance(Duration.ofSeconds(30));
        decideEvicting("low", 4);
        for (int i = 0; i < 4; i++) {
            leaving("low-" + i);
        }
        assertWaiting("low", "members being evicted");
        d.clock.advance(Duration.ofSeconds(2));
        d.pods("low", 4, PodPhase.FAILED, true); // the kubelet stopped them before the Job made new ones
        assertWaiting("low", "evicted members failed, none made again yet");
        replacements("low", 4);
        d.gang("low", GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.NONE, "gang ns/low: needs 4×(1 cpu), fits 0"));
        assertWaiting("low", "replacements refused");
        assertThat(d.pg("low").condition(PodGroupCondition.UNSCHEDULABLE).status()).isEqualTo(PodGroupCondition.TRUE);
        for (int i = 0; i < 4; i++) {
            d.deletePod("low-" + i);
        }
        assertWaiting("low", "evicted members gone");
        assertThat(d.pg("low").condition(PodGroupCondition.PREEMPTED).status()).isEqualTo(PodGroupCondition.TRUE);

        d.clock.advance(Duration.ofSeconds(60));
        Instant runsAgainAt = d.clock.instant();
        d.gang("low", GangState.RESERVED, "").gang("low", GangState.BOUND, "");
        for (int i = 0; i < 4; i++) {
            d.pod("low-r" + i, "low", PodPhase.RUNNING, true);
        }
        PodGroupStatus again = d.pg("low");
        assertThat(again.phase()).isEqualTo(PodGroupPhase.RUNNING);
        assertThat(again.condition(PodGroupCondition.SCHEDULED).lastTransitionTime()).as("scheduled again, from when it was")
                .isEqualTo(runsAgainAt).isAfter(scheduledAt);
        assertThat(again.condition(PodGroupCondition.UNSCHEDULABLE)).isNull();
        assertThat(again.condition(PodGroupCondition.PREEMPTED).status()).isEqualTo(PodGroupCondition.FALSE);
        assertThat(d.q("a").running()).isEqualTo(1);
    }

    @Test
    void evictedMembersSeenFailedBeforeTheDecisionArrivesDoNotLeaveItCompleted() {
        runningJob("low", 3);
        d.pods("low", 3, PodPhase.FAILED, true);
        decideEvicting("low", 3);
        assertWaiting("low", "the decision came after its victims failed");
        replacements("low", 3);
        assertWaiting("low", "replacements made");
    }

    @Test
    void replacementsOfAnEvictedJobStillBeingStoppedAreWaitingNotScheduled() {
        runningJob("low", 2);
        decideEvicting("low", 2);
        d.pods("low", 2, PodPhase.SUCCEEDED, true); // evicted members that exited 0 on SIGTERM
        replacements("low", 2);
        d.gang("low", GangState.UNSCHEDULABLE, "gang ns/low: needs 2×(1 cpu), fits 0");
        assertWaiting("low", "evicted members succeeded, replacements refused");
    }

    @Test
    void anEvictedMemberThatExitedWithSuccessDoesNotMakeTheGangWholeAgain() {
        runningJob("low", 2);
        decideEvicting("low", 2);
        leaving("low-0");
        assertThat(crossings).singleElement().extracting(GangShortfall::whole).isEqualTo(false);
        d.pod("low-0", "low", PodPhase.SUCCEEDED, true);
        assertThat(crossings).as("no GangWhole for an evicted member that exited 0").hasSize(1);
    }

    @Test
    void aCompletedGangThatGetsNewMembersWaitsForThem() {
        runningJob("done", 2);
        d.pods("done", 2, PodPhase.SUCCEEDED, true);
        assertThat(d.pg("done").phase()).isEqualTo(PodGroupPhase.COMPLETED);
        d.deletePod("done-0").deletePod("done-1");
        assertThat(d.pg("done").phase()).as("completed stays completed when its pods go").isEqualTo(PodGroupPhase.COMPLETED);
        replacements("done", 2);
        assertWaiting("done", "new members made");
    }

    @Test
    void aGangNeverReadsScheduledAndUnschedulableAtOnce() {
        d.queue("a").podGroup("g", 2, "a");
        d.pods("g", 3, PodPhase.PENDING, false).gang("g", GangState.BOUND, "");
        d.pod("g-0", "g", PodPhase.RUNNING, true).pod("g-1", "g", PodPhase.RUNNING, true);
        d.gang("g", GangState.UNSCHEDULABLE, "gang ns/g: its third member does not fit");
        PodGroupStatus s = d.pg("g");
        assertThat(s.phase()).isEqualTo(PodGroupPhase.RUNNING);
        assertThat(isTrue(s, PodGroupCondition.SCHEDULED) && isTrue(s, PodGroupCondition.UNSCHEDULABLE)).isFalse();
        assertThat(isTrue(s, PodGroupCondition.SCHEDULED)).as("it runs its minimum").isTrue();
    }
}
