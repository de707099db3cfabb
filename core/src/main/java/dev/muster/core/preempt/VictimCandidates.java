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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every unit a preemption may take, as the books stand: running gangs (whole, or their surplus above minMember and then
 * the rest) and single pods, of Muster's own scheduler, holding room for at least the minimum run time. Not offered:
 * pods being deleted or already evicted for another preemptor, binds still in flight, gangs still assembling (not
 * running), pods of other schedulers, and units a PodDisruptionBudget would not let go (checked for the whole unit,
 * and for a gang's rest together with its surplus). Confined to the core's lock.
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

    /** What was found: the units that may be taken, and why the others may not (for the reason a preemptor reads). */
    record Found(List<Unit> units, Map<String, String> protectedBy) {}

    /** The units that may be taken now ({@code minRuntimeNanos}: how long a unit must have held its room). */
    Found collect(long now, long minRuntimeNanos) {
        Ledger ledger = books.ledger();
        Map<GangKey, List<PodRecord>> byGang = new HashMap<>();
        List<Unit> units = new ArrayList<>();
        Map<String, String> protectedBy = new HashMap<>();
        for (PodRecord r : ledger.records()) {
            if (r.gang() != null) {
                byGang.computeIfAbsent(r.gang(), k -> new ArrayList<>()).add(r);
                continue;
            }
            Victim v = victim(r);
            if (v != null) {
                offer(new Unit(null, "", v.priority(), Part.SINGLE, List.of(v), books.heldSince(r.pod().uid())), now, minRuntimeNanos,
                        units, protectedBy, List.of());
            }
        }
        for (Map.Entry<GangKey, List<PodRecord>> e : byGang.entrySet()) {
            Gang g = books.gang(e.getKey());
            if (g == null || !g.running()) {
                continue; // still assembling (or its books are gone): never taken half-bound
            }
            List<Victim> pods = new ArrayList<>();
            for (PodRecord r : e.getValue()) {
                Victim v = victim(r);
                if (v == null) {
                    pods = null; // a member on its way out or being bound: the gang is not offered now
                    break;
                }
                pods.add(v);
            }
            if (pods == null || pods.isEmpty()) {
                continue;
            }
            int priority = Preemptions.priorityOf(g);
            // the most recently started members are the surplus
            pods.sort(Comparator.comparingLong((Victim v) -> books.heldSince(v.pod().uid())).reversed());
            int surplus = g.spec() == null ? 0 : pods.size() - g.minMember();
            boolean whole = g.spec() == null || g.spec().preemption().disruption() == DisruptionMode.ALL || surplus <= 0;
            if (whole) {
                offer(new Unit(g.key(), g.queue(), priority, Part.WHOLE, pods, sinceOf(pods)), now, minRuntimeNanos, units, protectedBy, List.of());
            } else {
                List<Victim> top = pods.subList(0, surplus);
                List<Victim> rest = pods.subList(surplus, pods.size());
                boolean surplusOffered = offer(new Unit(g.key(), g.queue(), priority, Part.SURPLUS, top, sinceOf(top)), now, minRuntimeNanos,
                        units, protectedBy, List.of());
                if (surplusOffered) {
                    offer(new Unit(g.key(), g.queue(), priority, Part.REST, rest, sinceOf(rest)), now, minRuntimeNanos, units, protectedBy, top);
                }
            }
        }
        return new Found(units, protectedBy);
    }

    /** Adds {@code u} when it ran long enough and the budgets let it go (with {@code alsoGoing}); returns whether it did. */
    private boolean offer(Unit u, long now, long minRuntimeNanos, List<Unit> units, Map<String, String> protectedBy, List<Victim> alsoGoing) {
        if (minRuntimeNanos > 0 && now - u.since() < minRuntimeNanos) {
            return false;
        }
        List<dev.muster.core.model.PodId> ids = new ArrayList<>(u.pods().size() + alsoGoing.size());
        for (Victim v : alsoGoing) {
            ids.add(v.pod());
        }
        for (Victim v : u.pods()) {
            ids.add(v.pod());
        }
        String budget = budgets.blocking(ids);
        if (budget != null) {
            protectedBy.put(u.describe(), budget);
            return false;
        }
        units.add(u);
        return true;
    }

    private long sinceOf(List<Victim> pods) {
        long since = Long.MIN_VALUE;
        for (Victim v : pods) {
            since = Math.max(since, books.heldSince(v.pod().uid()));
        }
        return since;
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
