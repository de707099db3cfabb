package dev.muster.core.preempt;

import dev.muster.core.gang.Gang;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.gang.OfferedNodes;
import dev.muster.core.model.Pod;

/**
 * Whether a waiting gang's members are ones kube-scheduler will bring to Muster, so that room taken for them can be
 * used: every member that is not bound yet is of Muster's scheduler profile ({@code spec.schedulerName}), carries no
 * {@code schedulingGates} (kube-scheduler does not try a gated pod, so room freed for it would only be taken by
 * someone else) other than Muster's own queue-admission gate when Muster lifts it ({@link QueueGate}: a gang
 * waiting behind it is lifted once room is reserved for it), and — when it has constraints only kube-scheduler judges (inter-pod affinity, topology spread,
 * volumes, resource claims) — has been offered at least one node by kube-scheduler. Stateless; called under the core's
 * lock.
 */
final class PreemptorMembers {
    private PreemptorMembers() {}

    /** Why {@code g} may not preempt because of its members, or null when they allow it. */
    static String whyNot(Gang g, String schedulerName, OfferedNodes offered, QueueGate gate) {
        for (Pod m : g.members()) {
            if (m.isBound()) {
                continue;
            }
            if (m.constraints().gated() && !gate.liftsOnly(m)) {
                return "pod " + m.id() + " has scheduling gates " + m.constraints().schedulingGates()
                        + " (kube-scheduler does not try it until they are removed; nothing is evicted for it)";
            }
            if (!m.schedulerName().isEmpty() && !m.schedulerName().equals(schedulerName)) {
                return "pod " + m.id() + " is scheduled by " + m.schedulerName() + ", not by " + schedulerName;
            }
            if (m.constraints().hasUndecided() && offered.of(m.uid()).isEmpty()) {
                return "pod " + m.id() + " has " + m.constraints().undecided() + ", which only kube-scheduler judges, and"
                        + " kube-scheduler has offered it no node yet (muster evicts only where kube-scheduler would place it)";
            }
        }
        return null;
    }
}
