package dev.muster.core.scheduler;

import dev.muster.core.model.PodId;
import java.util.List;

/**
 * The port through which the core asks kube-scheduler to try pods again that Muster refused at filter, once its books
 * changed in a way that may admit them (a Queue edited, reserved room or queue quota given back, a PodGroup edited).
 * kube-scheduler parks a pod an extender refused until a cluster event it watches; none of these is one, so the edge
 * turns each wake into a change of the pod that kube-scheduler's queue does act on.
 *
 * <p>Called only after the core's lock is released ({@link GangScheduler}); an implementation must not block (it
 * queues the work) and may drop a wake it cannot deliver: the pod is then retried on the next cluster event, or by
 * kube-scheduler's periodic flush of parked pods.
 */
@FunctionalInterface
public interface PodWaker {
    /** Wakes nobody (tests, and a process that does not talk to kube-scheduler's API server). */
    PodWaker NONE = (pods, why) -> {};

    /** Asks kube-scheduler to try {@code pods} again; {@code why} says what changed, for people. */
    void wake(List<PodId> pods, String why);
}
