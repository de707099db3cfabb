package dev.muster.core.status;

import static dev.muster.core.status.PodGroupPhase.COMPLETED;
import static dev.muster.core.status.PodGroupPhase.INQUEUE;
import static dev.muster.core.status.PodGroupPhase.PENDING;
import static dev.muster.core.status.PodGroupPhase.RUNNING;
import static dev.muster.core.status.PodGroupPhase.UNKNOWN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangState;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodGroupPhasesTest {

    /** waiting, active, running, succeeded, failed */
    private static MemberCounts m(int waiting, int active, int succeeded, int failed) {
        return new MemberCounts(waiting, active, active, succeeded, failed);
    }

    static Stream<Arguments> transitions() {
        return Stream.of(
                Arguments.of("new group, no members, stream silent", null, 3, null, m(0, 0, 0, 0), PENDING),
                Arguments.of("members exist but the gang waits", PENDING, 3, GangState.WAITING, m(3, 0, 0, 0), PENDING),
                Arguments.of("unschedulable stays pending", PENDING, 3, GangState.UNSCHEDULABLE, m(3, 0, 0, 0), PENDING),
                Arguments.of("backed off stays pending", PENDING, 3, GangState.BACKED_OFF, m(3, 0, 0, 0), PENDING),
                Arguments.of("admitted goes inqueue", PENDING, 3, GangState.ADMITTED, m(3, 0, 0, 0), INQUEUE),
                Arguments.of("reserved goes inqueue", PENDING, 3, GangState.RESERVED, m(3, 0, 0, 0), INQUEUE),
                Arguments.of("bound but members not yet bound is inqueue", INQUEUE, 3, GangState.BOUND, m(3, 0, 0, 0), INQUEUE),
                Arguments.of("minMember bound goes running", INQUEUE, 3, GangState.BOUND, m(0, 3, 0, 0), RUNNING),
                Arguments.of("fewer than minMember bound stays inqueue", INQUEUE, 3, GangState.RESERVED, m(1, 2, 0, 0), INQUEUE),
                Arguments.of("succeeded members count towards the gang", RUNNING, 3, GangState.BOUND, m(0, 1, 2, 0), RUNNING),
                Arguments.of("all succeeded completes", RUNNING, 3, GangState.BOUND, m(0, 0, 3, 0), COMPLETED),
                Arguments.of("finished with failures completes", RUNNING, 3, GangState.BOUND, m(0, 0, 2, 1), COMPLETED),
                Arguments.of("completed stays completed when pods are deleted", COMPLETED, 3, GangState.BOUND, m(0, 0, 0, 0), COMPLETED),
                Arguments.of("completed, then new members made: they wait", COMPLETED, 3, null, m(3, 0, 0, 0), PENDING),
                Arguments.of("pods vanish mid-run: unknown", RUNNING, 3, GangState.BOUND, m(0, 1, 0, 0), UNKNOWN),
                Arguments.of("all pods deleted mid-run: unknown", RUNNING, 3, GangState.BOUND, m(0, 0, 0, 0), UNKNOWN),
                Arguments.of("failure below quorum mid-run: unknown", RUNNING, 3, GangState.BOUND, m(0, 2, 0, 1), UNKNOWN),
                Arguments.of("unknown recovers to running", UNKNOWN, 3, GangState.BOUND, m(0, 3, 0, 0), RUNNING),
                Arguments.of("unknown stays unknown while nothing changes", UNKNOWN, 3, GangState.BOUND, m(1, 1, 0, 0), UNKNOWN),
                Arguments.of("unknown gang placed anew goes inqueue", UNKNOWN, 3, GangState.RESERVED, m(3, 0, 0, 0), INQUEUE),
                Arguments.of("running but extender says unschedulable, quorum lost: unknown", RUNNING, 3, GangState.UNSCHEDULABLE, m(2, 1, 0, 0), UNKNOWN),
                Arguments.of("a group never seen running completes with minMember finished", PENDING, 2, null, m(0, 0, 2, 0), COMPLETED),
                Arguments.of("a pending group with one finished pod below quorum stays pending", PENDING, 2, null, m(0, 0, 1, 0), PENDING),
                Arguments.of("minMember 0 is treated as 1", PENDING, 0, null, m(0, 1, 0, 0), RUNNING),
                Arguments.of("bound pods run even without a stream state (restart)", null, 2, null, m(0, 2, 0, 0), RUNNING));
    }

    static Stream<Arguments> preempted() {
        return Stream.of(
                Arguments.of("members being evicted: pending, not unknown", RUNNING, 3, GangState.BOUND, m(0, 0, 0, 0), PENDING),
                Arguments.of("evicted members failed: pending, not completed", UNKNOWN, 3, GangState.BOUND, m(0, 0, 0, 3), PENDING),
                Arguments.of("evicted members exited 0: pending, not completed", RUNNING, 3, GangState.BOUND, m(0, 0, 3, 0), PENDING),
                Arguments.of("seen completed before the decision: pending again", COMPLETED, 3, GangState.BOUND, m(0, 0, 0, 3), PENDING),
                Arguments.of("replacements refused: pending", PENDING, 3, GangState.UNSCHEDULABLE, m(3, 0, 0, 3), PENDING),
                Arguments.of("replacements placed: inqueue", PENDING, 3, GangState.RESERVED, m(3, 0, 0, 0), INQUEUE),
                Arguments.of("replacements bound: running", INQUEUE, 3, GangState.BOUND, m(0, 3, 0, 0), RUNNING),
                Arguments.of("surplus members evicted, minimum runs: running", RUNNING, 2, GangState.BOUND, m(0, 2, 0, 2), RUNNING));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("preempted")
    void aPreemptedGangWaitsUntilItRunsAgain(String name, PodGroupPhase previous, int minMember, GangState gang, MemberCounts members,
                                             PodGroupPhase expected) {
        assertThat(PodGroupPhases.next(previous, minMember, gang, members, true)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("transitions")
    void phaseRule(String name, PodGroupPhase previous, int minMember, GangState gang, MemberCounts members, PodGroupPhase expected) {
        assertThat(PodGroupPhases.next(previous, minMember, gang, members)).isEqualTo(expected);
    }
}
