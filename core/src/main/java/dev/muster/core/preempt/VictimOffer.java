package dev.muster.core.preempt;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import dev.muster.core.preempt.VictimCandidates.Candidate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The units a decision may take, in the order it prefers them, read lazily: candidates are turned into units (their
 * members read, their budgets asked, the caller's rule applied) only as far as the planner asks. Every prefix it hands
 * out is allowed together: a gang's rest only after that gang's surplus, a unit the PodDisruptionBudgets would refuse
 * together with every unit before it never (a budget's {@code disruptionsAllowed} is spent across all the units of a
 * decision, not per unit), and what {@link Rule} refuses given the units before it never. Confined to the core's
 * lock; one per decision.
 */
final class VictimOffer implements PreemptionPlanner.Units {
    /** A caller's rule: may {@code u} be taken after {@code taken}? It may remember what it allowed. */
    interface Rule {
        boolean allows(Unit u);

        Rule ANY = u -> true;
    }

    private final java.util.Iterator<Candidate> ordered; // read lazily: only as far as the planner asks
    private final VictimCandidates candidates;
    private final Rule rule;
    private final java.util.function.Predicate<String> refusedLately;
    private final List<Unit> allowed = new ArrayList<>();
    private final DisruptionBudgets.Tally going; // the pods of allowed, counted for the budgets
    private final Map<GangKey, Unit> surplusTaken = new HashMap<>();
    private final Map<String, String> protectedBy = new LinkedHashMap<>();

    /** {@code refusedLately}: pods (by uid) whose dry-run eviction was refused lately; a unit holding one is not offered. */
    VictimOffer(java.util.Iterator<Candidate> ordered, VictimCandidates candidates, Rule rule, java.util.function.Predicate<String> refusedLately) {
        this.ordered = ordered;
        this.candidates = candidates;
        this.rule = rule;
        this.refusedLately = refusedLately;
        this.going = candidates.budgetTally();
    }

    @Override
    public boolean reach(int k) {
        while (allowed.size() < k && ordered.hasNext()) {
            consider(ordered.next());
        }
        return allowed.size() >= k;
    }

    @Override
    public int available() {
        return allowed.size();
    }

    @Override
    public List<Unit> prefix(int k) {
        reach(k);
        return allowed.subList(0, Math.min(k, allowed.size()));
    }

    /**
     * The same offer without {@code taken} (units read from it already): a subset of an allowed prefix is allowed, so
     * {@code taken} with any prefix of the answer is too.
     */
    PreemptionPlanner.Units without(List<Unit> taken) {
        VictimOffer offer = this;
        return new PreemptionPlanner.Units() {
            private final List<Unit> rest = new ArrayList<>();
            private int read;

            @Override
            public boolean reach(int k) {
                while (rest.size() < k && offer.reach(read + 1)) {
                    Unit u = offer.allowed.get(read++);
                    if (!taken.contains(u)) {
                        rest.add(u);
                    }
                }
                return rest.size() >= k;
            }

            @Override
            public int available() {
                return rest.size();
            }

            @Override
            public List<Unit> prefix(int k) {
                reach(k);
                return rest.subList(0, Math.min(k, rest.size()));
            }
        };
    }

    /** Units a budget kept from being offered (their description → the budget), as far as the offer was read. */
    Map<String, String> protectedBy() {
        return protectedBy;
    }

    private void consider(Candidate c) {
        Unit surplus = c.part() == Part.REST ? surplusTaken.get(c.gangKey()) : null;
        if (c.part() == Part.REST && surplus == null) {
            return; // its surplus was not offered: the rest alone would leave the gang running below its minimum
        }
        Unit u = candidates.unit(c);
        if (u == null) {
            return;
        }
        for (Victim v : u.pods()) {
            if (refusedLately.test(v.pod().uid())) {
                protectedBy.put(u.describe(), "the API server (a dry-run eviction of " + v.pod() + " was refused lately)");
                return;
            }
        }
        List<PodId> pods = new ArrayList<>(u.pods().size());
        for (Victim v : u.pods()) {
            pods.add(v.pod());
        }
        String budget = going.blocking(pods);
        if (budget != null) {
            protectedBy.put(u.describe(), budget);
            return;
        }
        if (!rule.allows(u)) {
            return;
        }
        allowed.add(u);
        going.count(pods);
        if (u.part() == Part.SURPLUS) {
            surplusTaken.put(u.gang(), u);
        }
    }
}
