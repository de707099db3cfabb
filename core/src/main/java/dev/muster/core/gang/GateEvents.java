package dev.muster.core.gang;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import java.util.List;

/**
 * Port: tells the pods Muster keeps behind its scheduling gate ({@link QueueGate#NAME}) what their gang waits for, and
 * tells a pod when its gate was lifted. In production each becomes an Event regarding the pod. The core decides when to
 * tell ({@link GateTold}: on a change of reason, paced per pod, only while the gate's lifter is {@linkplain
 * GateLifter#ready() ready}); implementations are called with no lock held (or, for {@link #lifted}, on the lifter's
 * thread), must not block, and may drop what they cannot send.
 */
public interface GateEvents {
    /** {@code pods}, gated members of {@code gang}, wait for {@code note} (say {@code waiting for queue research: …}). */
    void waiting(GangKey gang, List<PodId> pods, String note);

    /** Muster's gate was lifted from {@code pod}, a member of {@code gang}; {@code note} says why. */
    void lifted(GangKey gang, PodId pod, String note);

    /** Tells nothing. */
    GateEvents NONE = new GateEvents() {
        @Override
        public void waiting(GangKey gang, List<PodId> pods, String note) {
        }

        @Override
        public void lifted(GangKey gang, PodId pod, String note) {
        }
    };
}
