package dev.muster.core.preempt;

import dev.muster.core.gang.Gang;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.model.FirstFew;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import java.util.ArrayList;
import java.util.List;

/**
 * One decision {@link GangDecisions} carries out: the units it takes, when its room must be free. {@code forQuota}: its
 * queue's capability admitted the gang only with victims of that queue gone, so their evictions go on even once it runs
 * (until {@code until}). {@code runsBefore}: the gang's {@link Gang#runsStarted} when it was decided, so a preemptor
 * that ran and then went (a job that finished, or was deleted, between two ticks) still counts as having run. Immutable;
 * read under the core's lock.
 */
record Preemption(Gang gang, PreemptionKind kind, int priority, List<Unit> units, List<Victim> victims, int victimNodes,
                  boolean forQuota, long until, int runsBefore) {

    /** Whether the preemptor ran since the decision (it may have ended since, or gone). */
    boolean preemptorRan() {
        return gang.runsStarted() > runsBefore;
    }

    /** {@code preempting ml/low-a (8 pods), ml/low-b (2 surplus pods): 3 still terminating}. */
    String note(Ledger ledger) {
        int still = 0;
        List<String> described = new ArrayList<>();
        for (Unit u : units) {
            described.add(u.describe());
            for (Victim v : u.pods()) {
                if (ledger.pod(v.pod().uid()) != null) {
                    still++;
                }
            }
        }
        String whom = FirstFew.of(described, 4);
        String verb = kind == PreemptionKind.RECLAIM ? "reclaiming from " : "preempting ";
        return verb + whom + (still > 0 ? ": " + still + " still terminating" : ": their room is free; members bind as kube-scheduler places them");
    }
}
