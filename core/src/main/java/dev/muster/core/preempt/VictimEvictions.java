package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.EvictionDecision.Eviction;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * the budgets did not know yet. Only when every check passed is the decision recorded for the next leader
 * ({@link Evictor#record}), and only once it is stored are the real evictions sent, all at once. A failed check (or a
 * record that could not be stored) ends the decision with nothing evicted ({@link Owner#checkFailed}).
 *
 * <p><b>Never abandoned once started.</b> A real eviction refused after the checks passed (the budget or the cluster
 * changed meanwhile, or a transient error) is retried with backoff ({@link #RETRY_AFTER} doubling up to
 * {@link #RETRY_AT_MOST}) for as long as the decision lasts: its room stays the preemptor's. Once any eviction of a
 * decision was accepted, its owner does not let it end while its preemptor waits: when the reservation runs out it plans
 * only the room still missing ({@link #kept}, then {@link #extend} with further units, checked and recorded as above).
 * When a decision ends (its preemptor runs, or gives up, or goes), {@link #end} stops its evictions: victims of a unit
 * none of whose pods went are no longer leaving; a unit already partly evicted is finished (at most
 * {@link #FINISH_TRIES} tries a pod), so that no gang is left below its minimum; its record is forgotten once nothing of
 * it is left to evict. Victims evicted for a preemptor that did not run on their room are counted wasted.
 *
 * <p><b>Leader changes.</b> A process that stops leading forgets its decisions but not their records. The next leader
 * reads them after its first full sync ({@link #adopt}): a decision none of whose units started is rolled back (record
 * forgotten, nothing marked); a unit partly evicted (a pod gone or terminating) is finished; the owner keeps the room.
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

    private final Books books;
    private final Ledger ledger;
    private final Evictor evictor;
    private final Consumer<Runnable> underLock;
    private final Owner owner;
    private final Map<GangKey, EvictionDecision> decisions = new HashMap<>(); // preemptor → its decision, until it ends
    private final Map<String, Eviction> byUid = new HashMap<>(); // victim uid → its eviction, until it is settled
    private final Map<String, Long> refusedLately = new HashMap<>(); // victim uid → until when no decision takes it
    private final List<EvictionDecision> finishing = new ArrayList<>(); // ended with a stored record: forgotten when settled
    private long nextId;
    private long evicted;
    private long refusedByBudget;
    private long failed;
    private long wasted;
    private long endedRefused, endedOvertaken; // decisions that ended before any eviction was sent

    VictimEvictions(Books books, Evictor evictor, Consumer<Runnable> underLock, Owner owner) {
        this.books = books;
        this.ledger = books.ledger();
        this.evictor = evictor;
        this.underLock = underLock;
        this.owner = owner;
    }

    /** Marks {@code units} leaving for {@code preemptor} and checks each victim by a dry run. */
    void start(GangKey preemptor, List<Unit> units, String why) {
        EvictionDecision d = new EvictionDecision(preemptor, why, preemptor + "@" + books.now() + "#" + nextId++);
        decisions.put(preemptor, d);
        check(d, units);
    }

    /**
     * Adds {@code units} to {@code preemptor}'s decision (the room it still misses), checked and recorded before they are
     * evicted; a refusal lets them go and leaves the rest of the decision as it was.
     */
    void extend(GangKey preemptor, List<Unit> units) {
        EvictionDecision d = decisions.get(preemptor);
        if (d == null || d.ended) {
            throw new IllegalStateException("no decision under way for " + preemptor);
        }
        check(d, units);
    }

    private void check(EvictionDecision d, List<Unit> units) {
        List<Eviction> round = new ArrayList<>();
        for (Unit u : units) {
            for (Victim v : u.pods()) {
                ledger.markLeaving(v.pod().uid());
                Eviction e = new Eviction(v, u, d);
                d.evictions.add(e);
                round.add(e);
                byUid.put(v.pod().uid(), e);
            }
        }
        d.round = round;
        d.checkRefused = null;
        d.checksPending = round.size();
        if (round.isEmpty()) {
            recordAndSend(d);
            return;
        }
        for (Eviction e : round) {
            books.outbox().later(() -> evictor.check(e.victim.pod()).whenComplete((outcome, failure) -> underLock.accept(() ->
                    checked(e, failure != null ? new EvictionOutcome.Failed(String.valueOf(failure.getMessage())) : outcome))));
        }
    }

    private void checked(Eviction e, EvictionOutcome outcome) {
        EvictionDecision d = e.decision;
        if (d.ended || !d.round.contains(e)) {
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
            roundFailed(d, d.checkRefused);
            return;
        }
        recordAndSend(d);
    }

    /** Every check of the round passed: the decision is recorded, then the round's evictions are sent. */
    private void recordAndSend(EvictionDecision d) {
        PreemptionRecord record = d.record();
        List<Eviction> round = d.round;
        books.outbox().later(() -> evictor.record(record).whenComplete((notStored, failure) -> underLock.accept(() ->
                recorded(d, round, record, failure != null ? String.valueOf(failure.getMessage()) : notStored))));
    }

    private void recorded(EvictionDecision d, List<Eviction> round, PreemptionRecord record, String notStored) {
        if (notStored == null) {
            d.stored = record;
        }
        if (d.ended || d.round != round) {
            if (d.ended && notStored == null && !d.committed) {
                forgetLater(record); // ended before anything was sent: nothing for a next leader to finish
            }
            return;
        }
        if (notStored != null) {
            roundFailed(d, "the decision could not be recorded for a next leader: " + notStored);
            return;
        }
        boolean first = !d.committed;
        d.committed = true;
        d.round = List.of();
        if (first) {
            owner.committed(d.preemptor);
        }
        for (Eviction x : round) {
            send(x);
        }
    }

    /** The round's checks or its record failed: its victims are let go; a decision nothing of which was sent ends. */
    private void roundFailed(EvictionDecision d, String why) {
        for (Eviction e : d.round) {
            let(e);
            d.evictions.remove(e);
        }
        d.round = List.of();
        if (!d.committed) {
            d.ended = true;
            endedRefused++;
            decisions.remove(d.preemptor, d);
            owner.checkFailed(d.preemptor, why);
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
        if (e.decision.ended && (!e.unitStarted() || e.tries >= FINISH_TRIES)) {
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

    /** Forgets evictions whose pod is gone, sends the retries that are due, and forgets records of settled decisions. */
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
        for (var it = finishing.iterator(); it.hasNext(); ) {
            EvictionDecision d = it.next();
            if (d.settled(byUid)) {
                it.remove();
                forgetLater(d.stored);
            }
        }
    }

    /** Whether every victim of {@code preemptor}'s decision was evicted (true when no decision of it is under way). */
    boolean allEvicted(GangKey preemptor) {
        EvictionDecision d = decisions.get(preemptor);
        return d == null || d.allAccepted();
    }

    /**
     * {@code preemptor}'s decision is over ({@code ran}: it runs on its room). Its evictions stop: see the class comment.
     * Victims it had evicted count wasted unless it ran.
     */
    void end(GangKey preemptor, boolean ran) {
        EvictionDecision d = decisions.remove(preemptor);
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
            endedOvertaken++; // its preemptor ran on other room, went, or its reservation ended first
            for (Eviction e : d.evictions) {
                let(e);
            }
            return; // a record stored meanwhile is forgotten when its answer comes (recorded)
        }
        for (Eviction e : d.evictions) {
            if (d.round.contains(e) || (!e.accepted && !e.inFlight && (!e.unitStarted() || e.tries >= FINISH_TRIES))) {
                let(e);
            }
        }
        d.round = List.of();
        if (d.stored != null) {
            finishing.add(d);
        }
    }

    /** Whether {@code preemptor}'s decision passed its checks and was recorded: its evictions were sent. */
    boolean sent(GangKey preemptor) {
        EvictionDecision d = decisions.get(preemptor);
        return d != null && d.committed;
    }

    /** Whether an eviction of {@code preemptor}'s decision was accepted: the decision may not be abandoned. */
    boolean started(GangKey preemptor) {
        EvictionDecision d = decisions.get(preemptor);
        return d != null && d.committed && d.started();
    }

    /**
     * The room {@code preemptor}'s started decision keeps when it plans again: the pods evicted and not gone yet, as
     * units (pods gone left free room). Victims not evicted yet are taken out of the count: those of a unit already
     * started are still being finished; the others are let go and no decision takes them before {@link #RETRY_AT_MOST}.
     */
    List<Unit> kept(GangKey preemptor) {
        EvictionDecision d = decisions.get(preemptor);
        Map<Unit, List<Victim>> kept = new LinkedHashMap<>();
        for (Eviction e : new ArrayList<>(d.evictions)) {
            boolean live = byUid.get(e.victim.pod().uid()) == e;
            if (e.accepted && live) {
                kept.computeIfAbsent(e.unit, u -> new ArrayList<>()).add(e.victim);
            } else if (!e.accepted && !e.unitStarted()) {
                refusedLately.put(e.victim.pod().uid(), books.now() + RETRY_AT_MOST.toNanos());
                let(e);
                d.evictions.remove(e);
            }
        }
        List<Unit> out = new ArrayList<>();
        kept.forEach((u, pods) -> out.add(new Unit(u.gang(), u.queue(), u.priority(), u.part(), pods, u.since())));
        return out;
    }

    /**
     * A decision an earlier leader recorded (see the class comment). Returns the units whose room it keeps for its
     * preemptor (the pods of its started units not gone yet, all of them marked leaving and the rest of each sent their
     * evictions), or null when none of its units started: then it is rolled back and its record forgotten.
     */
    List<Unit> adopt(PreemptionRecord r) {
        EvictionDecision d = new EvictionDecision(r.preemptor(), "finishing the preemption for " + r.preemptor() + " an earlier leader began", r.id());
        d.committed = true;
        d.stored = r;
        boolean started = false;
        List<Unit> kept = new ArrayList<>();
        for (List<PodId> pods : r.units()) {
            List<Victim> present = new ArrayList<>();
            List<Boolean> leaving = new ArrayList<>();
            boolean unitStarted = false;
            for (PodId id : pods) {
                PodRecord pr = ledger.pod(id.uid());
                Pod p = books.pod(id.uid());
                if (pr == null || p == null || byUid.containsKey(id.uid())) {
                    unitStarted |= pr == null || p == null;
                    continue;
                }
                unitStarted |= p.terminating();
                present.add(new Victim(pr.pod(), pr.gang(), pr.queue(), p.priority(), pr.node(), pr.request()));
                leaving.add(p.terminating());
            }
            started |= unitStarted;
            if (!unitStarted || present.isEmpty()) {
                continue;
            }
            Victim first = present.getFirst();
            Unit u = new Unit(first.gang(), first.queue(), first.priority(), first.gang() == null ? Part.SINGLE : Part.WHOLE, present,
                    books.now());
            kept.add(u);
            d.startedEarlier.add(u);
            for (int i = 0; i < present.size(); i++) {
                Victim v = present.get(i);
                ledger.markLeaving(v.pod().uid());
                Eviction e = new Eviction(v, u, d);
                e.accepted = leaving.get(i);
                d.evictions.add(e);
                byUid.put(v.pod().uid(), e);
            }
        }
        if (!started) {
            forgetLater(r);
            return null;
        }
        decisions.put(r.preemptor(), d);
        for (Eviction e : d.evictions) {
            if (!e.accepted) {
                send(e);
            }
        }
        return kept;
    }

    /**
     * This process no longer leads: every decision is forgotten (not its record: the next leader finishes or rolls it
     * back), and the victims not evicted yet are no longer leaving (victims evicted stay leaving until they go).
     */
    void leadershipLost() {
        for (EvictionDecision d : decisions.values()) {
            d.ended = true;
        }
        for (Eviction e : new ArrayList<>(byUid.values())) {
            e.decision.ended = true;
            if (!e.accepted) {
                let(e);
            }
        }
        byUid.clear();
        decisions.clear();
        finishing.clear();
    }

    /** Deletes a decision's record once the core's lock is released. */
    private void forgetLater(PreemptionRecord r) {
        books.outbox().later(() -> evictor.forget(r));
    }

    /** The victim is no longer evicted: its room and its queue's hold are its own again. */
    private void let(Eviction e) {
        if (byUid.remove(e.victim.pod().uid(), e)) {
            ledger.unmarkLeaving(e.victim.pod().uid());
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

    /** Decisions that ended before any eviction was sent because a victim's dry run, or the decision's record, failed. */
    long endedRefused() {
        return endedRefused;
    }

    /** Decisions that ended before any eviction was sent because they were no longer needed (see {@link #end}). */
    long endedOvertaken() {
        return endedOvertaken;
    }
}
