package dev.muster.core.gang;

import dev.muster.core.model.Pod;
import java.util.List;
import java.util.Objects;

/**
 * The queue-admission gate: when {@code enabled}, the chart's admission policy gives every gang member of Muster's
 * scheduler the scheduling gate {@link #NAME} when it is created, and Muster lifts it once the gang's queue admits the
 * gang and every {@link GateHold} lets it go ({@link GateLifts}). Until then kube-scheduler — and any cluster
 * autoscaler — ignores the pods. Off: Muster lifts nothing and treats its gate like any other.
 *
 * @param enabled whether Muster lifts its gate
 * @param holds   further reasons to keep an admitted gang gated (none by default)
 * @param lifter  the port that removes the gate from a pod
 * @param events  the port that tells gated pods what their gang waits for, and that their gate was lifted
 */
public record QueueGate(boolean enabled, List<GateHold> holds, GateLifter lifter, GateEvents events) {
    /** The scheduling gate's name. */
    public static final String NAME = "muster.dev/queue-admission";
    /** Muster lifts nothing. */
    public static final QueueGate OFF = new QueueGate(false, List.of(), GateLifter.NONE, GateEvents.NONE);

    public QueueGate {
        holds = List.copyOf(holds);
        Objects.requireNonNull(lifter, "lifter");
        Objects.requireNonNull(events, "events");
    }

    /** The gate on, lifting through {@code lifter}, with no holds. */
    public static QueueGate on(GateLifter lifter) {
        return new QueueGate(true, List.of(), lifter, GateEvents.NONE);
    }

    /** The same gate, telling gated pods through {@code events}. */
    public QueueGate withEvents(GateEvents events) {
        return new QueueGate(enabled, holds, lifter, events);
    }

    /** The same gate with {@code hold} consulted too. */
    public QueueGate withHold(GateHold hold) {
        List<GateHold> more = new java.util.ArrayList<>(holds);
        more.add(Objects.requireNonNull(hold, "hold"));
        return new QueueGate(enabled, more, lifter, events);
    }

    /** Whether {@code p} carries Muster's gate. */
    public static boolean carries(Pod p) {
        return p.constraints().schedulingGates().contains(NAME);
    }

    /** Whether {@code p} carries a scheduling gate other than Muster's (one Muster never lifts). */
    public static boolean foreign(Pod p) {
        for (String gate : p.constraints().schedulingGates()) {
            if (!NAME.equals(gate)) {
                return true;
            }
        }
        return false;
    }

    /** Whether Muster lifts its own gate, so that a pod gated by that gate alone will reach kube-scheduler. */
    public boolean liftsOnly(Pod p) {
        return enabled && carries(p) && !foreign(p);
    }
}
