package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.DisruptionMode;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import dev.muster.core.gang.SingleHolders;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.PriorityQueue;
import java.util.function.Predicate;

/**
 * What a preemption may take, as the books stand: running gangs (whole, or their surplus above minMember and then the
 * rest) and single pods, of Muster's own scheduler, holding room for at least the minimum run time.
 *
 * <p>Two steps, so that a decision at 40,000 running pods and 50,000 pods of other schedulers reads only the pods of
 * the victims it needs: {@link #byPriority} and {@link #gangs} list {@linkplain Candidate candidates} from per-gang
 * counts (O(gangs), no member is read) and from the single pods Muster's books keep filed by scheduler and priority
 * ({@link SingleHolders}: read lazily, as far as the decision reads), and {@link #unit} reads one candidate's members
 * when the decision gets to it. A candidate is no unit when a
 * member may not go: being deleted, already evicted for another preemptor, its bind still in flight, or of another
 * scheduler. {@link #budgetTally} counts a decision's victims for the PodDisruptionBudgets, which are asked about each unit
 * together with the victims counted before it (a gang's surplus goes before its rest). Confined to the core's lock.
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

    /**
     * The order of preemption by priority: a gang's surplus first, then lower priority, then fewer pods, then the most
     * recently started.
     */
    static final Comparator<Candidate> BY_PRIORITY = Comparator.comparingInt((Candidate c) -> c.part() == Part.SURPLUS ? 0 : 1)
            .thenComparingInt(Candidate::priority)
            .thenComparingInt(Candidate::pods)
            .thenComparing(Comparator.comparingLong(Candidate::since).reversed());

    /**
     * The candidates of priority below {@code below} that {@code wanted} keeps and that held their room at least
     * {@code minRuntimeNanos} by {@code now}, in {@link #BY_PRIORITY} order, read lazily: running gangs' parts from
     * per-gang counts (O(gangs), sorted), merged with Muster's single pods read from {@link SingleHolders} in the same
     * order as far as the caller reads. Pods of other schedulers are never read.
     */
    Iterator<Candidate> byPriority(long now, long minRuntimeNanos, int below, Predicate<Candidate> wanted) {
        List<Candidate> gangs = gangs(now, minRuntimeNanos, c -> c.priority() < below && wanted.test(c));
        gangs.sort(BY_PRIORITY);
        long heldBy = minRuntimeNanos <= 0 ? Long.MAX_VALUE : now - minRuntimeNanos;
        List<Iterator<Candidate>> sources = new ArrayList<>();
        sources.add(gangs.iterator());
        for (String scheduler : schedulerName.isEmpty() ? List.of("") : List.of("", schedulerName)) {
            sources.add(singles(books.singles().below(scheduler, below, heldBy), wanted));
        }
        return merged(sources, BY_PRIORITY);
    }

    /** The running gangs' parts that {@code wanted} keeps and that held their room long enough, unordered (O(gangs)). */
    List<Candidate> gangs(long now, long minRuntimeNanos, Predicate<Candidate> wanted) {
        List<Candidate> out = new ArrayList<>();
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

    /** The filed single pods as candidates, skipping any the books no longer show as a single pod holding room. */
    private Iterator<Candidate> singles(Iterator<SingleHolders.Entry> filed, Predicate<Candidate> wanted) {
        return new Iterator<>() {
            private Candidate next;

            @Override
            public boolean hasNext() {
                while (next == null && filed.hasNext()) {
                    SingleHolders.Entry e = filed.next();
                    PodRecord r = books.ledger().pod(e.uid());
                    Pod p = books.pod(e.uid());
                    if (r != null && r.gang() == null && p != null) {
                        Candidate c = new Candidate(null, r, "", p.priority(), Part.SINGLE, 1, books.heldSince(e.uid()));
                        next = wanted.test(c) ? c : null;
                    }
                }
                return next != null;
            }

            @Override
            public Candidate next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Candidate c = next;
                next = null;
                return c;
            }
        };
    }

    /** The sources (each in {@code order}) merged lazily in {@code order}. */
    private static Iterator<Candidate> merged(List<Iterator<Candidate>> sources, Comparator<Candidate> order) {
        record Head(Candidate c, Iterator<Candidate> rest) {}
        PriorityQueue<Head> heads = new PriorityQueue<>(Math.max(1, sources.size()), Comparator.comparing(Head::c, order));
        for (Iterator<Candidate> s : sources) {
            if (s.hasNext()) {
                heads.add(new Head(s.next(), s));
            }
        }
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return !heads.isEmpty();
            }

            @Override
            public Candidate next() {
                Head h = heads.poll();
                if (h == null) {
                    throw new NoSuchElementException();
                }
                if (h.rest().hasNext()) {
                    heads.add(new Head(h.rest().next(), h.rest()));
                }
                return h.c();
            }
        };
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

    /** A count of one decision's victims for the PodDisruptionBudgets, empty ({@link DisruptionBudgets#tally}). */
    DisruptionBudgets.Tally budgetTally() {
        return budgets.tally();
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
