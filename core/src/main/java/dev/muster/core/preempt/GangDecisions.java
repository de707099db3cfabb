package dev.muster.core.preempt;

import dev.muster.core.gang.BindBarrier;
import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.WaitingLine;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.model.FirstFew;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.stream.AllocationEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ObjLongConsumer;

/**
 * The life of gangs' preemption decisions, from carried out to ended. Confined to the core's lock ({@link Books});
 * {@link Preemptions} decides which gang preempts and hands the decision here.
 *
 * <p><b>Carrying out.</b> The preemptor reserves its plan at once, over the victims' room ({@link Ledger#markLeaving}),
 * until the victims' grace period plus the margin plus the gang's deadline; {@link VictimEvictions} checks every victim by
 * a dry run, records the decision for a next leader, then evicts them all. A failed check gives every victim back and the
 * gang is planned again later ({@link #abandoned}). Once an eviction is accepted the decision is never abandoned while
 * its preemptor waits: when the reservation runs out with victims stuck, only the missing room is planned ({@link #shortfall}).
 *
 * <p><b>Owns</b> {@code active}: each preemptor's decision while it holds room (from {@link #carryOut} until
 * {@link #follow} sees its reservation gone, or it runs), and the count of decisions made.
 */
final class GangDecisions {
    private static final System.Logger LOG = System.getLogger(GangDecisions.class.getName());

    private final Books books;
    private final Ledger ledger;
    private final GangAdmission admission;
    private final WaitingLine line;
    private final BindBarrier barrier;
    private final PreemptionChoice choice;
    private final PreemptionSettings settings;
    private final Duration gangDeadline;
    private final VictimEvictions evictions;
    private final ObjLongConsumer<GangKey> planAgainLater; // the gang may be planned again only after a while from now
    private final Map<GangKey, Preemption> active = new LinkedHashMap<>(); // preemptor → its decision while it holds room
    private long priorityDecisions, reclaimDecisions;

    GangDecisions(Books books, GangAdmission admission, WaitingLine line, BindBarrier barrier, PreemptionChoice choice,
                  PreemptionSettings settings, Duration gangDeadline, VictimEvictions evictions, ObjLongConsumer<GangKey> planAgainLater) {
        this.books = books;
        this.ledger = books.ledger();
        this.admission = admission;
        this.line = line;
        this.barrier = barrier;
        this.choice = choice;
        this.settings = settings;
        this.gangDeadline = gangDeadline;
        this.evictions = evictions;
        this.planAgainLater = planAgainLater;
    }

    /** Carries out a new decision {@code d} for {@code g}: victims marked leaving, then the gang's room reserved. */
    void carryOut(Gang g, PreemptionChoice.Decision d, long now) {
        carryOut(g, d, now, null);
    }

    /** {@code kept}: the units an earlier plan of the same decision took (null for a new decision). */
    private void carryOut(Gang g, PreemptionChoice.Decision d, long now, List<Unit> kept) {
        PreemptionPlanner.Result.Planned p = d.plan();
        long grace = 0;
        List<Victim> victims = new ArrayList<>();
        for (Unit u : p.victims()) {
            for (Victim v : u.pods()) {
                victims.add(v);
                Pod pod = books.pod(v.pod().uid());
                grace = Math.max(grace, pod == null ? Pod.DEFAULT_GRACE_SECONDS : pod.graceSeconds());
            }
        }
        Duration deadline = g.spec().deadline() != null ? g.spec().deadline() : gangDeadline;
        long until = now + Duration.ofSeconds(grace).plus(settings.margin()).plus(deadline).toNanos();
        int priority = PreemptionChoice.priorityOf(g);
        boolean forQuota = books.queueVerdict(g.queue(), line.needOf(g), g.key()) instanceof QueueAdmission.Verdict.Refused;
        Preemption pre = new Preemption(g, d.kind(), priority, p.victims(), victims, p.victimNodes(), forQuota, until, g.runsStarted());
        active.put(g.key(), pre);
        String why = (d.kind() == PreemptionKind.RECLAIM ? "reclaimed by queue " + g.queue() + " for " : "preempted by ")
                + g.key() + " (priority " + priority + ") to place " + p.plan().placements().size() + " pods";
        if (kept == null) {
            evictions.start(g.key(), p.victims(), why); // marks them leaving before the reservation takes their room
        } else {
            evictions.extend(g.key(), p.victims().subList(kept.size(), p.victims().size()));
        }
        admission.reservePreempting(g, p.plan(), until, pre.note(ledger), priority);
        if (kept != null) {
            return; // the same decision, not a new one
        }
        LOG.log(System.Logger.Level.INFO, () -> "decided: " + victims.size() + " pods " + why + " (victims: "
                + FirstFew.of(victims.stream().map(v -> v.pod().toString()).toList(), 8) + ")");
        if (d.kind() == PreemptionKind.PRIORITY) {
            priorityDecisions++;
        } else {
            reclaimDecisions++;
        }
    }

    /** A dry run refused a victim: nothing was evicted; the gang gives its room back and is planned again later. */
    void abandoned(GangKey preemptor, String why) {
        Preemption pre = active.remove(preemptor);
        if (pre != null && ledger.reservation(preemptor) != null && !pre.gang().running()) {
            Refusal r = Refusal.of(Refusal.Cause.RESOURCES, "gang " + preemptor + ": preemption abandoned before any eviction, " + why
                    + "; planning again");
            barrier.dropReservation(pre.gang(), r);
            books.state(pre.gang(), GangState.UNSCHEDULABLE, r);
        }
        planAgainLater.accept(preemptor, books.now());
    }

    /** Every victim passed its check and the decision is recorded: it goes on the allocation stream. */
    void committed(GangKey preemptor) {
        Preemption pre = active.get(preemptor);
        if (pre != null) {
            books.outbox().emit(new AllocationEvent.PreemptionDecided(preemptor, pre.gang().queue(), pre.priority(), pre.kind(),
                    pre.victims(), pre.victimNodes()));
        }
    }

    /** Ends decisions whose reservation is gone, and tells each preemptor how many of its victims still hold room. */
    void follow(long now) {
        for (var it = active.values().iterator(); it.hasNext(); ) {
            Preemption pre = it.next();
            Gang g = pre.gang();
            if (pre.forQuota() && g.running() && books.gang(g.key()) == g && now - pre.until() < 0 && !evictions.allEvicted(g.key())) {
                continue; // it runs on free room, but its queue's capability admitted it only with these victims gone
            }
            if (ledger.reservation(g.key()) == null || g.running() || books.gang(g.key()) != g) {
                it.remove();
                if (!evictions.sent(g.key())) {
                    LOG.log(System.Logger.Level.INFO, () -> "the " + pre.kind().name().toLowerCase(Locale.ROOT) + " decision for gang "
                            + g.key() + " ended before any eviction was sent: " + (g.running() ? "it runs on other room"
                            : books.gang(g.key()) != g ? "it is gone" : "its reservation is gone") + "; its victims stay");
                }
                evictions.end(g.key(), pre.preemptorRan()); // one that ran, then went before this tick, ran on their room
                continue;
            }
            if (g.state() == GangState.RESERVED) {
                books.state(g, GangState.RESERVED, Refusal.note(pre.note(ledger)));
            }
        }
    }

    /**
     * Before reservations expire: a started decision (an eviction of it was accepted) is never abandoned while its
     * preemptor waits. When its reservation runs out with victims still stuck, only the room still missing is planned
     * (further units, besides the pods already on their way out), and the gang's room is reserved anew.
     */
    void shortfall(long now) {
        for (Preemption pre : new ArrayList<>(active.values())) {
            Gang g = pre.gang();
            var r = ledger.reservation(g.key());
            if (r == null || now - r.deadlineNanos() < 0 || g.running() || books.gang(g.key()) != g || !evictions.started(g.key())) {
                continue;
            }
            List<Unit> kept = evictions.kept(g.key());
            barrier.dropReservation(g, Refusal.of(Refusal.Cause.DEADLINE_PASSED, "gang " + g.key()
                    + ": its victims did not all go in time; planning only the room still missing"));
            if (!resume(g, kept, now)) {
                active.remove(g.key());
                evictions.end(g.key(), false);
                books.state(g, GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.RESOURCES, "gang " + g.key()
                        + ": its victims did not all go in time, and the room still missing cannot be taken now; planning again"));
                planAgainLater.accept(g.key(), now);
            }
        }
    }

    /**
     * An earlier leader's started decision for the gang {@code preemptor}, whose {@code kept} victims are still leaving:
     * a preemptor that still waits keeps its room (only what the kept victims do not free is planned); otherwise the
     * decision ends.
     */
    void adopt(GangKey preemptor, List<Unit> kept, long now) {
        Gang g = books.gang(preemptor);
        boolean waits = g != null && g.spec() != null && !g.spec().isUnresolved() && !g.running() && !books.admitted(g);
        if (!(waits && resume(g, kept, now))) {
            evictions.end(preemptor, g != null && g.running());
        }
    }

    /** Keeps {@code g}'s room: plans only what {@code kept} does not make, reserves it, and evicts the further units. */
    private boolean resume(Gang g, List<Unit> kept, long now) {
        PreemptionChoice.Decision d = choice.decide(g, now, kept);
        if (d.plan() == null) {
            return false;
        }
        carryOut(g, d, now, kept);
        return true;
    }

    /** Whether {@code key} has a decision under way: its reservation holds room its victims still leave. */
    boolean holds(GangKey key) {
        return active.containsKey(key);
    }

    /** This process no longer leads: its decisions are forgotten (their reservations are dropped with every other). */
    void leadershipLost() {
        active.clear();
    }

    long priorityDecisions() {
        return priorityDecisions;
    }

    long reclaimDecisions() {
        return reclaimDecisions;
    }
}
