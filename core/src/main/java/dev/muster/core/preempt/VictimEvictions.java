package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.model.GangKey;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Carries out the evictions of preemption decisions. Confined to the core's lock ({@link Books}); the evictor is asked
 * after the lock is released and its answers are handled under it again ({@code underLock}).
 *
 * <p><b>Checked together, then evicted together.</b> A decision's victims are marked leaving at once
 * ({@link Ledger#markLeaving}: their room is the preemptor's, their queues no longer hold them). Then every victim is
 * evicted as a dry run ({@link Evictor#check}): the API server answers as it would for the real eviction, budgets
 * included, and evicts nothing. The victims were chosen so that every PodDisruptionBudget allows them all together
 * (Muster's own arithmetic over the whole decision, {@link VictimOffer}); the dry run also catches what Muster's copy of
 * the budgets did not know yet. Only when every check passed are the real evictions sent, all at once: a refusal the
 * cluster could foresee never leaves a decision half carried out. A failed check ends the decision with nothing
 * evicted ({@link Owner#checkFailed}).
 *
 * <p><b>Never abandoned once started.</b> A real eviction refused after the checks passed (the budget or the cluster
 * changed meanwhile, or a transient error) is retried with backoff ({@link #RETRY_AFTER} doubling up to
 * {@link #RETRY_AT_MOST}) for as long as the decision lasts: its room stays the preemptor's. When a decision ends
 * (its preemptor runs, or gives up at its reservation's deadline, or goes), {@link #end} stops its evictions: victims of
 * a unit none of whose pods went are no longer leaving; a unit already partly evicted is finished (at most
 * {@link #FINISH_TRIES} tries a pod), so that no gang is left running below its minimum because of a decision nobody
 * follows any more. Victims evicted for a preemptor that did not run on their room are counted wasted.
 */
final class VictimEvictions {
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);
    static final Duration RETRY_AT_MOST = Duration.ofSeconds(60);
    static final int FINISH_TRIES = 6;

    /** What the decision's owner hears. */
    interface Owner {
        /** A dry run refused a victim of {@code preemptor}'s decision: nothing was evicted, every victim is back. */
        void checkFailed(GangKey preemptor, String why);

        /** Every victim of {@code preemptor}'s decision passed its dry run: the real evictions are on their way. */
        void committed(GangKey preemptor);
    }

    /** One decision's evictions. */
    private static final class Decision {
        final GangKey preemptor;
        final String why;
        final List<Eviction> evictions = new ArrayList<>();
        int checksPending;
        String checkRefused;
        boolean committed;
        boolean ended;

        Decision(GangKey preemptor, String why) {
            this.preemptor = preemptor;
            this.why = why;
        }
    }

    /** One victim's eviction. */
    private static final class Eviction {
        final Victim victim;
        final Unit unit;
        final Decision decision;
        boolean inFlight;
        boolean accepted;
        int tries;
        long retryAt = Long.MIN_VALUE;

        Eviction(Victim victim, Unit unit, Decision decision) {
            this.victim = victim;
            this.unit = unit;
            this.decision = decision;
        }
    }

    private final Books books;
    private final Ledger ledger;
    private final Evictor evictor;
    private final Consumer<Runnable> underLock;
    private final Owner owner;
    private final Map<GangKey, Decision> decisions = new HashMap<>(); // preemptor → its decision, until it ends
    private final Map<String, Eviction> byUid = new HashMap<>(); // victim uid → its eviction, until it is settled
    private final Map<String, Long> refusedLately = new HashMap<>(); // victim uid → until when no decision takes it
    private long evicted;
    private long refusedByBudget;
    private long failed;
    private long wasted;

    VictimEvictions(Books books, Evictor evictor, Consumer<Runnable> underLock, Owner owner) {
        this.books = books;
        this.ledger = books.ledger();
        this.evictor = evictor;
        this.underLock = underLock;
        this.owner = owner;
    }

    /** Marks {@code units} leaving for {@code preemptor} and checks each victim by a dry run. */
    void start(GangKey preemptor, List<Unit> units, String why) {
        Decision d = new Decision(preemptor, why);
        for (Unit u : units) {
            for (Victim v : u.pods()) {
                ledger.markLeaving(v.pod().uid());
                Eviction e = new Eviction(v, u, d);
                d.evictions.add(e);
                byUid.put(v.pod().uid(), e);
            }
        }
        decisions.put(preemptor, d);
        d.checksPending = d.evictions.size();
        for (Eviction e : d.evictions) {
            books.outbox().later(() -> evictor.check(e.victim.pod()).whenComplete((outcome, failure) -> underLock.accept(() ->
                    checked(e, failure != null ? new EvictionOutcome.Failed(String.valueOf(failure.getMessage())) : outcome))));
        }
    }

    private void checked(Eviction e, EvictionOutcome outcome) {
        Decision d = e.decision;
        if (d.ended || d.committed) {
            return;
        }
        d.checksPending--;
        String refused = switch (outcome) {
            case EvictionOutcome.Evicted ok -> null;
            case EvictionOutcome.Gone gone -> null;
            case EvictionOutcome.RefusedByBudget r -> {
                refusedByBudget++;
                yield "a PodDisruptionBudget would refuse the eviction of " + e.victim.pod() + ": " + r.message();
            }
            case EvictionOutcome.Failed f -> {
                failed++;
                yield "the dry-run eviction of " + e.victim.pod() + " failed: " + f.message();
            }
        };
        if (refused != null) {
            refusedLately.put(e.victim.pod().uid(), books.now() + RETRY_AT_MOST.toNanos());
            if (d.checkRefused == null) {
                d.checkRefused = refused;
            }
        }
        if (d.checksPending > 0) {
            return;
        }
        if (d.checkRefused != null) {
            d.ended = true;
            forget(d, true);
            owner.checkFailed(d.preemptor, d.checkRefused);
            return;
        }
        d.committed = true;
        owner.committed(d.preemptor);
        for (Eviction x : d.evictions) {
            send(x);
        }
    }

    private void send(Eviction e) {
        e.inFlight = true;
        e.tries++;
        books.outbox().later(() -> evictor.evict(e.victim.pod(), e.decision.why).whenComplete((outcome, failure) -> underLock.accept(() ->
                answered(e, failure != null ? new EvictionOutcome.Failed(String.valueOf(failure.getMessage())) : outcome))));
    }

    private void answered(Eviction e, EvictionOutcome outcome) {
        e.inFlight = false;
        if (byUid.get(e.victim.pod().uid()) != e) {
            return; // settled meanwhile (the pod is gone, or the decision let it go)
        }
        switch (outcome) {
            case EvictionOutcome.Evicted ok -> {
                evicted++;
                e.accepted = true;
            }
            case EvictionOutcome.Gone gone -> e.accepted = true;
            case EvictionOutcome.RefusedByBudget r -> {
                refusedByBudget++;
                retryLater(e);
            }
            case EvictionOutcome.Failed f -> {
                failed++;
                retryLater(e);
            }
        }
    }

    private void retryLater(Eviction e) {
        if (e.decision.ended && (!unitStarted(e) || e.tries >= FINISH_TRIES)) {
            let(e);
            return;
        }
        long wait = Math.min(RETRY_AT_MOST.toNanos(), RETRY_AFTER.toNanos() << Math.min(e.tries - 1, 20));
        e.retryAt = books.now() + wait;
    }

    /** Whether a dry run refused evicting the pod {@code uid} lately: no decision takes it before {@link #RETRY_AT_MOST}. */
    boolean refusedLately(String uid) {
        Long until = refusedLately.get(uid);
        return until != null && books.now() - until < 0;
    }

    /** Forgets evictions whose pod is gone, and sends the retries that are due. */
    void tick(long now) {
        refusedLately.values().removeIf(until -> now - until >= 0);
        for (Eviction e : new ArrayList<>(byUid.values())) {
            if (ledger.pod(e.victim.pod().uid()) == null) {
                byUid.remove(e.victim.pod().uid());
                continue;
            }
            if (!e.accepted && !e.inFlight && e.retryAt != Long.MIN_VALUE && now - e.retryAt >= 0) {
                e.retryAt = Long.MIN_VALUE;
                send(e);
            }
        }
    }

    /**
     * {@code preemptor}'s decision is over ({@code ran}: it runs on its room). Its evictions stop: see the class comment.
     * Victims it had evicted count wasted unless it ran.
     */
    /** Whether every victim of {@code preemptor}'s decision was evicted (true when no decision of it is under way). */
    boolean allEvicted(GangKey preemptor) {
        Decision d = decisions.get(preemptor);
        if (d == null) {
            return true;
        }
        for (Eviction e : d.evictions) {
            if (!e.accepted) {
                return false;
            }
        }
        return true;
    }

    void end(GangKey preemptor, boolean ran) {
        Decision d = decisions.remove(preemptor);
        if (d == null || d.ended) {
            return;
        }
        d.ended = true;
        if (!ran) {
            for (Eviction e : d.evictions) {
                if (e.accepted) {
                    wasted++;
                }
            }
        }
        if (!d.committed) {
            forget(d, false);
            return;
        }
        for (Eviction e : d.evictions) {
            if (!e.accepted && !e.inFlight && (!unitStarted(e) || e.tries >= FINISH_TRIES)) {
                let(e);
            }
        }
    }

    /**
     * This process no longer leads: every decision is forgotten, and the victims not evicted yet are no longer leaving
     * (victims evicted stay leaving until they go).
     */
    void leadershipLost() {
        for (Eviction e : new ArrayList<>(byUid.values())) {
            if (!e.accepted) {
                let(e);
            }
        }
        byUid.clear();
        decisions.clear();
    }

    /** Whether any pod of {@code e}'s unit was evicted. */
    private static boolean unitStarted(Eviction e) {
        for (Eviction x : e.decision.evictions) {
            if (x.unit == e.unit && x.accepted) {
                return true;
            }
        }
        return false;
    }

    /** The victim is no longer evicted: its room and its queue's hold are its own again. */
    private void let(Eviction e) {
        if (byUid.remove(e.victim.pod().uid(), e)) {
            ledger.unmarkLeaving(e.victim.pod().uid());
        }
    }

    private void forget(Decision d, boolean remove) {
        for (Eviction e : d.evictions) {
            let(e);
        }
        if (remove) {
            decisions.remove(d.preemptor, d);
        }
    }

    long evicted() {
        return evicted;
    }

    long refusedByBudget() {
        return refusedByBudget;
    }

    long failed() {
        return failed;
    }

    long wasted() {
        return wasted;
    }
}
