package dev.muster.core.status;

import dev.muster.core.model.PodPhase;

/**
 * A gang's member pods by what they are doing. Each pod is in exactly one of {@code waiting} (not bound, not
 * finished), {@code active} (bound, not finished — starting or running), {@code succeeded} or {@code failed};
 * {@code running} counts the active pods whose phase is Running. Immutable.
 */
public record MemberCounts(int waiting, int active, int running, int succeeded, int failed) {
    public static final MemberCounts NONE = new MemberCounts(0, 0, 0, 0, 0);

    public MemberCounts plus(PodObservation pod) {
        return add(pod, 1);
    }

    public MemberCounts minus(PodObservation pod) {
        return add(pod, -1);
    }

    private MemberCounts add(PodObservation pod, int d) {
        PodPhase phase = pod.phase();
        if (phase == PodPhase.SUCCEEDED) {
            return new MemberCounts(waiting, active, running, succeeded + d, failed);
        }
        if (phase == PodPhase.FAILED) {
            return new MemberCounts(waiting, active, running, succeeded, failed + d);
        }
        if (pod.bound() || phase == PodPhase.RUNNING) {
            return new MemberCounts(waiting, active + d, running + (phase == PodPhase.RUNNING ? d : 0), succeeded, failed);
        }
        return new MemberCounts(waiting + d, active, running, succeeded, failed);
    }

    /** Members that exist and have not finished. */
    public int unfinished() {
        return waiting + active;
    }

    public int finished() {
        return succeeded + failed;
    }

    public int total() {
        return waiting + active + succeeded + failed;
    }
}
