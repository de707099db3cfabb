package dev.muster.core.status;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangState;
import dev.muster.core.model.PodPhase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Membership crossings: a scheduled gang that falls below its minimum is reported once, and once when whole again. */
class GangShortfallTest {
    private final List<GangShortfall> crossings = new ArrayList<>();

    private FoldDriver boundWhole(int members, int minMember) {
        FoldDriver d = new FoldDriver(crossings::add).queue("q").podGroup("pg", minMember, "q");
        d.pods("pg", members, PodPhase.PENDING, false).gang("pg", GangState.BOUND, "").pods("pg", members, PodPhase.RUNNING, true);
        assertThat(d.pg("pg").initiallyScheduled()).isNotNull();
        return d;
    }

    @Test
    void aDeletedMemberOfAWholeGangIsReportedOnceNamingIt() {
        FoldDriver d = boundWhole(4, 4);
        assertThat(crossings).as("binding whole is not a crossing").isEmpty();

        d.deletePod("pg-2");
        assertThat(crossings).containsExactly(new GangShortfall(FoldDriver.key("pg"), false, 3, 4, List.of("ns/pg-2")));
        assertThat(crossings.getFirst().reason()).isEqualTo("GangBelowMinimum");
        assertThat(crossings.getFirst().note()).isEqualTo("3 of minimum 4 members bound; lost: ns/pg-2");

        d.deletePod("pg-1").pod("pg-0", "pg", PodPhase.RUNNING, true).gang("pg", GangState.UNSCHEDULABLE, "fits 2");
        assertThat(crossings).as("further losses and inputs while short: no second report").hasSize(1);
        assertThat(d.pg("pg").initiallyScheduled()).as("the status keeps its first schedule").isNotNull();
    }

    @Test
    void aFailedMemberIsALossAndAReplacementMakesTheGangWholeAgain() {
        FoldDriver d = boundWhole(3, 3);
        d.pod("pg-1", "pg", PodPhase.FAILED, true);
        assertThat(crossings).containsExactly(new GangShortfall(FoldDriver.key("pg"), false, 2, 3, List.of("ns/pg-1")));

        d.pod("pg-9", "pg", PodPhase.PENDING, false);
        assertThat(crossings).as("a replacement not yet bound holds no place").hasSize(1);
        d.pod("pg-9", "pg", PodPhase.RUNNING, true);
        assertThat(crossings).hasSize(2);
        GangShortfall whole = crossings.get(1);
        assertThat(whole.whole()).isTrue();
        assertThat(whole.reason()).isEqualTo("GangWhole");
        assertThat(whole.note()).isEqualTo("3 of minimum 3 members bound; whole again");

        d.deletePod("pg-0");
        assertThat(crossings).as("each crossing is reported again").hasSize(3);
        assertThat(crossings.get(2).lost()).containsExactly("ns/pg-0");
    }

    @Test
    void surplusMembersAndPhaseChangesOfBoundMembersAreNoLoss() {
        FoldDriver d = boundWhole(5, 3);
        d.deletePod("pg-4").deletePod("pg-3");
        d.pod("pg-0", "pg", PodPhase.SUCCEEDED, true);
        d.pod("pg-1", "pg", PodPhase.UNKNOWN, true);
        assertThat(crossings).as("still 3 holding: bound or succeeded").isEmpty();

        d.deletePod("pg-2");
        assertThat(crossings).hasSize(1);
        assertThat(crossings.getFirst().lost()).as("only the loss that took it below").containsExactly("ns/pg-2");
    }

    @Test
    void aCompletedGangWhosePodsGoAwayLostNothing() {
        FoldDriver d = boundWhole(3, 3);
        d.pods("pg", 3, PodPhase.SUCCEEDED, true);
        assertThat(d.pg("pg").phase()).isEqualTo(PodGroupPhase.COMPLETED);
        d.deletePod("pg-0").deletePod("pg-1").deletePod("pg-2");
        assertThat(crossings).isEmpty();
    }

    @Test
    void aGangNeverScheduledWholeHasNothingToLose() {
        FoldDriver d = new FoldDriver(crossings::add).queue("q").podGroup("pg", 3, "q");
        d.pods("pg", 2, PodPhase.PENDING, true).deletePod("pg-0");
        d.pods("pg", 3, PodPhase.PENDING, false).gang("pg", GangState.UNSCHEDULABLE, "fits 2");
        assertThat(crossings).isEmpty();
    }

    @Test
    void aDeletedPodGroupStartsOver() {
        FoldDriver d = boundWhole(3, 3);
        d.deletePodGroup("pg").deletePod("pg-0");
        assertThat(crossings).as("no PodGroup, nothing to report about").isEmpty();
        d.podGroup("pg", 3, "q").deletePod("pg-1");
        assertThat(crossings).as("a new PodGroup of the same name was never scheduled").isEmpty();
    }

    @Test
    void aRaisedMinimumThatTheMembersDoNotMeetIsReported() {
        FoldDriver d = boundWhole(3, 3);
        d.podGroup("pg", 4, "q");
        assertThat(crossings).containsExactly(new GangShortfall(FoldDriver.key("pg"), false, 3, 4, List.of()));
        assertThat(crossings.getFirst().note()).isEqualTo("3 of minimum 4 members bound");
    }

    @Test
    void aColdFoldReportsNothingForWhatItFindsAtWarmUp() {
        PodGroupCondition scheduled = new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE, "Scheduled", "", null);
        StatusFolding fold = new StatusFolding(ManualClock.at("2025-01-01T00:00:00Z"), StatusChangeListener.NONE, false, crossings::add);
        fold.observePodGroup(dev.muster.core.model.PodGroupSpec.of(FoldDriver.key("pg"), 3, "q"),
                new PodGroupStatus(PodGroupPhase.RUNNING, List.of(scheduled), 0, 0, 0, 0, "", scheduled));
        fold.observePod(new PodObservation("a", FoldDriver.key("pg"), PodPhase.RUNNING, true));
        fold.warmUp();
        fold.observePod(new PodObservation("b", FoldDriver.key("pg"), PodPhase.RUNNING, true));
        assertThat(crossings).as("short at restart: unknown loss, not reported").isEmpty();
        fold.observePod(new PodObservation("c", FoldDriver.key("pg"), PodPhase.RUNNING, true));
        fold.podDeleted("c");
        assertThat(crossings).as("seen whole after the restart, then short").hasSize(1);
        assertThat(crossings.getFirst().lost()).as("a pod known by uid only is named by it").containsExactly("c");
    }
}
