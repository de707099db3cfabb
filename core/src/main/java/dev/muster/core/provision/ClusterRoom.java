package dev.muster.core.provision;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.preempt.Preemptions;
import java.util.Map;

/**
 * {@link Room} on the core's books: a gang fits when the planner that admits gangs places it on the nodes' free room
 * ({@link GangAdmission#inputOf}, the same plan input admission uses); preemption would place it when
 * {@link Preemptions#advise} (the decision the tick would make, nothing changed) finds victims; the reservation is
 * {@link GangAdmission#reserve}, the one admission makes. Confined to the core's lock.
 */
public final class ClusterRoom implements Room {
    private final Books books;
    private final GangAdmission admission;
    private final Preemptions preemptions;

    public ClusterRoom(Books books, GangAdmission admission, Preemptions preemptions) {
        this.books = books;
        this.admission = admission;
        this.preemptions = preemptions;
    }

    @Override
    public Outlook outlook(Gang g) {
        if (g.spec() == null || g.running() || books.admitted(g)) {
            return Outlook.FITS;
        }
        GangAdmission.PlanInput in = admission.inputOf(g);
        GangPlanner.Result plan = admission.planner().plan(books.ledger().nodes(), in.members(), in.requirement(), Map.of(), in.topology());
        if (plan instanceof GangPlanner.Result.Planned) {
            return Outlook.FITS;
        }
        return switch (preemptions.advise(g.key(), books.now())) {
            case PreemptionAdvice.Preempt p -> Outlook.PREEMPTS;
            case PreemptionAdvice.NoneNeeded n -> Outlook.FITS;
            case PreemptionAdvice.CannotRun c -> Outlook.NEEDS_NODES;
            case PreemptionAdvice.Unknown u -> Outlook.FITS;
        };
    }

    @Override
    public boolean admitted(Gang g) {
        return books.admitted(g);
    }

    @Override
    public Refusal reserve(Gang g) {
        return g.spec() == null ? Refusal.of(Refusal.Cause.PODGROUP_UNRESOLVED, "its PodGroup is not known") : admission.reserve(g, books.now());
    }
}
