package dev.muster.core.model;

/**
 * How a running gang may be disrupted (Kubernetes' {@code disruptionMode}: {@code single} or {@code all}; Volcano's and
 * scheduler-plugins' PodGroups have no such field and are {@link #SINGLE}).
 */
public enum DisruptionMode {
    /** Members may be disrupted one by one: a preemption may take members above minMember (its surplus), no more. */
    SINGLE,
    /** The gang is a victim only as a whole: a preemption takes every bound member or none. */
    ALL;

    /**
     * Whether a running gang with {@code bound} members holding resources may lose {@code taken} of them to a preemption
     * and still be what this mode promises.
     */
    public boolean mayLose(int taken, int bound, int minMember) {
        if (taken <= 0) {
            return true;
        }
        return switch (this) {
            case SINGLE -> bound - taken >= minMember;
            case ALL -> taken >= bound;
        };
    }
}
