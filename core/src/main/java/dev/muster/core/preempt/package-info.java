/**
 * Taking capacity back: gang-aware preemption by priority and queue reclaim. {@link dev.muster.core.preempt.PreemptionPlanner}
 * is pure: it plans a whole gang on the ledger <em>as if</em> chosen victims were gone and says which victims, whole
 * units only; {@link dev.muster.core.preempt.PreemptionChoice} orders the candidates
 * ({@link dev.muster.core.preempt.VictimCandidates}, read lazily through {@link dev.muster.core.preempt.VictimOffer}) and
 * applies the priority and reclaim rules; {@link dev.muster.core.preempt.Preemptions} is confined to the scheduling core's
 * lock and decides on the tick which gang preempts; {@link dev.muster.core.preempt.GangDecisions} carries a decision out
 * (the preemptor's reservation over the victims' room) and follows it until it ends;
 * {@link dev.muster.core.preempt.VictimEvictions} evicts the victims through the {@link dev.muster.core.preempt.Evictor}
 * port (every victim checked by a dry run first, then all evicted; never abandoned once started). {@link dev.muster.core.preempt.DisruptionBudgets} is the port through
 * which PodDisruptionBudgets are read before victims are chosen.
 */
package dev.muster.core.preempt;
