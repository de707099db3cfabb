package dev.muster.controller.writer;

import dev.muster.core.status.GangNote;

/**
 * Records one Kubernetes Event about a PodGroup with one request (the port {@link GangEvents} talks to;
 * {@link KubeEventRecorder} is the Kubernetes adapter, tests use fakes). Called from one thread at a time.
 */
public interface EventRecorder {
    /**
     * @throws StatusPatchException when the Event was not recorded (it is dropped, never retried)
     */
    void record(GangNote note) throws StatusPatchException;
}
