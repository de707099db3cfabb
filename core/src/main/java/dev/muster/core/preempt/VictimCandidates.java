package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.DisruptionMode;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;

/**
 * What a preemption may take, as the books stand: running gangs (whole, or their surplus above minMember and then the
 * rest) and single pods, of Muster's own scheduler, holding room for at least the minimum run time.
 *
 * <p>Two steps, so that a decision at 40,000 running pods reads only the pods of the victims it needs:
 * {@link #collect} lists {@linkplain Candidate candidates} from per-gang counts (O(gangs + single pods), no member is
 * read), and {@link #unit} reads one candidate's members when the decision gets to it. A candidate is no unit when a
 * member may not go: being deleted, already evicted for another preemptor, its bind still in flight, or of another
 * scheduler. {@link #blocking} asks the PodDisruptionBudgets about a unit (with the surplus that goes before a gang's
 * rest). Confined to the core's lock.
 */
final class VictimCandidates {
    private final Books books;
    private final DisruptionBudgets budgets;
    private final String schedulerName;

    VictimCandidates(Books books, DisruptionBudgets budgets, String schedulerName) {
        this.books = books;
        this.budgets = budgets;
        this.schedulerName = schedulerName;
    }

    /**
     * A unit not yet read: a gang's part ({@code gang}), or a single pod ({@code single}); {@code pods} how many it
     * holds, {@code since} when its most recent pod started holding room.
     */
    record Candidate(Gang gang, PodRecord single, String queue, int priority, Part part, int pods, long since) {
        GangKey gangKey() {
            return gang == null ? null : gang.key();
        }
    }

    /** The candidates {@code wanted} keeps that held their room at least {@code minRuntimeNanos} by {@code now}. */
    List<Candidate> collect(long now, long minRuntimeNanos, Predicate<Candidate> wanted) {
        List<Candidate> out = new ArrayList<>();
        for (PodRecord r : books.ledger().records()) {
            if (r.gang() != null) {
                continue;
            }
            Pod p = books.pod(r.pod().uid());
            if (p == null) {
                continue;
            }
            Candidate c = new Candidate(null, r, "", p.priority(), Part.SINGLE, 1, books.heldSince(r.pod().uid()));
            if (ranLongEnough(c, now, minRuntimeNanos) && wanted.test(c)) {
                out.add(c);
            }
        }
        for (Gang g : books.gangs()) {
            if (!g.running() || g.bound() == 0) {
                continue; // still assembling: never taken half-bound
            }
            int priority = PreemptionChoice.priorityOf(g);
            int surplus = g.spec() == null ? 0 : g.bound() - g.minMember();
            boolean whole = surplus <= 0 || g.spec().preemption().disruption() == DisruptionMode.ALL;
            if (whole) {
                add(out, new Candidate(g, null, g.queue(), priority, Part.WHOLE, g.bound(), g.lastBoundNanos()), now, minRuntimeNanos, wanted);
            } else {
                add(out, new Candidate(g, null, g.queue(), priority, Part.SURPLUS, surplus, g.lastBoundNanos()), now, minRuntimeNanos, wanted);
                add(out, new Candidate(g, null, g.queue(), priority, Part.REST, g.minMember(), g.lastBoundNanos()), now, minRuntimeNanos, wanted);
            }
        }
        return out;
    }

    private static void add(List<Candidate> out, Candidate c, long now, long minRuntimeNanos, Predicate<Candidate> wanted) {
        if (ranLongEnough(c, now, minRuntimeNanos) && wanted.test(c)) {
            out.add(c);
        }
    }

    private static boolean ranLongEnough(Candidate c, long now, long minRuntimeNanos) {
        return minRuntimeNanos <= 0 || now - c.since() >= minRuntimeNanos;
    }

    /** The candidate's pods as a unit, or null when one of them may not go (see the class comment). */
    Unit unit(Candidate c) {
        if (c.single() != null) {
            Victim v = victim(c.single());
            return v == null ? null : new Unit(null, "", c.priority(), Part.SINGLE, List.of(v), c.since());
        }
        List<Victim> pods = new ArrayList<>(c.gang().bound());
        Ledger ledger = books.ledger();
        for (Pod m : c.gang().members()) {
            PodRecord r = ledger.pod(m.uid());
            if (r == null || !c.gang().key().equals(r.gang())) {
                continue;
            }
            Victim v = victim(r);
            if (v == null) {
                return null;
            }
            pods.add(v);
        }
        if (pods.isEmpty()) {
            return null;
        }
        // most recently started first (they are the surplus; the first is evicted first)
        pods.sort(Comparator.comparingLong((Victim v) -> books.heldSince(v.pod().uid())).reversed().thenComparing(v -> v.pod().uid()));
        if (c.part() != Part.WHOLE) {
            int surplus = Math.max(0, pods.size() - c.gang().minMember());
            pods = c.part() == Part.SURPLUS ? pods.subList(0, surplus) : pods.subList(surplus, pods.size());
            if (pods.isEmpty()) {
                return null;
            }
        }
        return new Unit(c.gangKey(), c.queue(), c.priority(), c.part(), pods, c.since());
    }

    /** The budget ({@code namespace/name}) that would refuse evicting {@code u} together with {@code alsoGoing}, or null. */
    String blocking(Unit u, List<Victim> alsoGoing) {
        List<PodId> ids = new ArrayList<>(u.pods().size() + alsoGoing.size());
        for (Victim v : alsoGoing) {
            ids.add(v.pod());
        }
        for (Victim v : u.pods()) {
            ids.add(v.pod());
        }
        return budgets.blocking(ids);
    }

    /** The record as a victim, or null when it may not be one (see the class comment). */
    private Victim victim(PodRecord r) {
        Pod p = books.pod(r.pod().uid());
        if (p == null || r.assumed() || p.terminating() || books.ledger().isLeaving(r.pod().uid())
                || (!p.schedulerName().isEmpty() && !p.schedulerName().equals(schedulerName))) {
            return null;
        }
        return new Victim(r.pod(), r.gang(), r.queue(), p.priority(), r.node(), r.request());
    }
}
