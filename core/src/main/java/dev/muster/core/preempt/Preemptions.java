package dev.muster.core.preempt;

import dev.muster.core.gang.AdmissionHold;
import dev.muster.core.gang.BindBarrier;
import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.LineOrder;
import dev.muster.core.gang.WaitingLine;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.model.FirstFew;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PreemptionPolicy;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Takes capacity back for waiting gangs: which gang may preempt, and when. Confined to the core's lock ({@link Books}).
 *
 * <p><b>When.</b> On every tick, after the admission pass: the waiting gangs, in line order (higher priority, then the
 * queue furthest below its fair share, then the oldest), are each offered one decision — a gang that fits on free room
 * takes nobody's — until one preempts (at most {@link #TRIES_PER_TICK} plans a tick; a gang that found nothing to take is tried again
 * after {@link #RETRY_AFTER}). A gang preempts only when all its members exist, are Muster's and carry no scheduling
 * gates ({@link PreemptorMembers}), its queue's capability admits it (a queue full for now admits it when victims of
 * lower priority in it make the room: they count gone), neither its PodGroup nor any member's PriorityClass says
 * {@code preemptionPolicy: Never}, and it is not already preempting.
 *
 * <p><b>Whom.</b> By priority: units of strictly lower priority in the gang's own queue, and single pods of lower
 * priority (they belong to no queue) — surplus members first, then lower priority, then fewer pods, then the most
 * recently started. By reclaim (when priority finds nothing and the gang's queue is below its fair share): gangs of
 * reclaimable queues above their fair share — the queue furthest above first, then surplus, lower priority, most
 * recently started — each taken only while its queue stays at or above its fair share (on its dominant resource and on
 * every resource the gang lacks), and its guarantee, and only if the gang's queue, with the gang, stays at or below its own: two queues never take turns evicting each other.
 * {@link PreemptionPlanner} chooses the fewest units with which the gang fits whole; nothing is evicted unless it fits.
 * Victims already leaving for another decision count gone everywhere (their queue no longer holds them), so decisions
 * in consecutive ticks never take a queue below its share; and the room they free beyond their preemptor's reservation
 * counts as coming free, so a gang that fits on it waits for it instead of evicting more (gangs after it in line in the
 * same tick do not count on that room as well).
 *
 * <p><b>Carrying out.</b> {@link GangDecisions} carries each decision out and follows it until it ends (a gang whose
 * decision is abandoned before any eviction is planned again after {@link #RETRY_AFTER}); {@link SinglePodPreemptions}
 * does the same for single pods; {@link VictimEvictions} evicts for both.
 *
 * <p><b>Who decides.</b> Only a process that leads ({@link Evictor#ready}), has listed the cluster once ({@code synced}:
 * nodes, pods, PodDisruptionBudgets and PodGroups) and has read what an earlier leader left half done ({@link Handover})
 * decides or evicts anything; until it has read that, no gang is admitted either ({@link AdmissionHold}).
 */
public final class Preemptions {
    static final int TRIES_PER_TICK = 4;
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);
    /** How a waiting gang's reason says why it takes nobody's room. */
    static final String CANNOT_PREEMPT = "; preempts nothing: ";

    private final Books books;
    private final WaitingLine line;
    private final PreemptionChoice choice;
    private final PreemptionSettings settings;
    private final Evictor evictor;
    private final BooleanSupplier synced;
    private final VictimEvictions evictions;
    private final String schedulerName;
    private final SinglePodPreemptions singles;
    private final GangDecisions decisions;
    private final Map<GangKey, Long> retryAt = new HashMap<>(); // gangs that found nothing to take: not before
    private final Handover handover;
    private final DecisionTimes times = new DecisionTimes();
    private boolean tickHeldBack;

    /** {@code hold}: gang admission, held until the records of an earlier leader are read ({@link Handover}). */
    public Preemptions(Books books, GangAdmission admission, WaitingLine line, BindBarrier barrier, PreemptionSettings settings,
                       Duration gangDeadline, String schedulerName, Evictor evictor, DisruptionBudgets budgets, Consumer<Runnable> underLock,
                       BooleanSupplier synced, AdmissionHold hold) {
        this.books = books;
        this.line = line;
        this.settings = evictor == Evictor.NONE ? PreemptionSettings.OFF : settings;
        this.evictor = evictor;
        this.schedulerName = schedulerName;
        this.synced = synced;
        this.handover = new Handover(books, evictor, underLock, hold, records -> {
            adopt(records, books.now());
            if (tickHeldBack) { // a tick or a filter waited for them (a read asked for at sync decides at the next tick)
                tick(books.now());
            }
        });
        this.evictions = new VictimEvictions(books, evictor, underLock, new VictimEvictions.Owner() {
            @Override
            public void checkFailed(GangKey preemptor, String why) {
                if (singles.owns(preemptor)) {
                    singles.checkFailed(preemptor);
                    return;
                }
                decisions.abandoned(preemptor, why);
            }

            @Override
            public void committed(GangKey preemptor) {
                if (singles.owns(preemptor)) {
                    AllocationEvent.PreemptionDecided decided = singles.committed(preemptor);
                    if (decided != null) {
                        books.outbox().emit(decided);
                    }
                    return;
                }
                decisions.committed(preemptor);
            }
        });
        VictimCandidates candidates = new VictimCandidates(books, budgets, schedulerName);
        this.choice = new PreemptionChoice(books, admission, line, this.settings, candidates, evictions::refusedLately);
        this.singles = new SinglePodPreemptions(books, this.settings, gangDeadline, schedulerName, candidates, admission.planner(), evictions);
        this.decisions = new GangDecisions(books, admission, line, barrier, choice, this.settings, gangDeadline, evictions,
                (key, now) -> retryAt.put(key, now + RETRY_AFTER.toNanos()));
    }

    // ---- the tick ---------------------------------------------------------------------------------------

    /** Reads an earlier leader's records ({@link Handover}); {@code thenTick}: a tick follows their adoption at once. */
    public void handOver(boolean thenTick) {
        if (evictor.ready() && synced.getAsBoolean() && !handover.adopted()) {
            tickHeldBack |= thenTick;
            handover.read();
        }
    }

    /** Follows the decisions under way, retries due evictions, then lets waiting gangs take room back. */
    public void tick(long now) {
        if (!evictor.ready() || !synced.getAsBoolean()) {
            return; // a standby, or a leader that has not listed the cluster yet, decides nothing and evicts nothing
        }
        if (!handover.adopted()) {
            tickHeldBack = true; // the tick that waits for the records runs once they are adopted
            handover.read();
            return; // first what an earlier leader left half done
        }
        decisions.follow(now);
        singles.follow(now);
        evictions.tick(now);
        if (!settings.any()) {
            return;
        }
        if (settings.priority() && singles.tick(now)) {
            return; // one decision a tick (single pods kube-scheduler could not place first: they asked before)
        }
        List<Gang> waiting = preemptors(now);
        if (waiting.isEmpty()) {
            return;
        }
        int tries = 0;
        Map<String, Resources> promised = new HashMap<>(); // room gangs earlier in line fit on this tick, per node
        for (Gang g : waiting) {
            if (tries++ >= TRIES_PER_TICK) {
                break;
            }
            long started = System.nanoTime();
            PreemptionChoice.Decision d = choice.decide(g, now, promised);
            times.timed(System.nanoTime() - started);
            if (d.plan() != null) {
                decisions.carryOut(g, d, now);
                return; // one decision a tick: the next one sees its victims leaving
            }
            retryAt.put(g.key(), now + RETRY_AFTER.toNanos());
            if (d.fitsNow()) {
                // it waits for that room (free, or freed by pods leaving); gangs after it in line do not count on it too
                for (Ledger.Placement p : d.fitsOn().placements()) {
                    promised.merge(p.node(), p.request(), Resources::plus);
                }
                continue;
            }
            if (g.why().text().contains(CANNOT_PREEMPT)) {
                continue;
            }
            if (g.why().cause() == Refusal.Cause.NONE) {
                // nothing asked about it yet (kube-scheduler found no node for any member): the decision is the first word
                books.state(g, GangState.UNSCHEDULABLE, Refusal.of(Refusal.Cause.RESOURCES, "gang " + g.key()
                        + ": does not fit on free room" + CANNOT_PREEMPT + d.why()));
            } else {
                books.state(g, g.state(), g.why().suffixed(CANNOT_PREEMPT + d.why()));
            }
        }
    }

    /**
     * Gangs that may preempt now, in line order: higher priority, then the queue furthest below its fair share, then the
     * older gang. Each gang's key is read once before the sort (a queue's ratio once per queue), not at every comparison:
     * the tick sorts every gang that may preempt, and nothing changes the keys while it does.
     */
    private List<Gang> preemptors(long now) {
        List<Preemptor> found = new ArrayList<>();
        retryAt.values().removeIf(t -> now - t >= 0);
        Map<String, Double> ratios = new HashMap<>();
        for (Gang g : books.gangs()) {
            // every waiting gang, not only those a filter or the pass already found short of room: kube-scheduler does
            // not even ask about members no node has room for, and the pass plans a gang it is not waiting on only once
            // it waited --set-aside-after. A gang that fits now takes nobody's room (the planner says so first).
            if (line.waiting(g, now) && !retryAt.containsKey(g.key()) && mayPreempt(g, now) == null) {
                found.add(new Preemptor(g, PreemptionChoice.priorityOf(g), ratios.computeIfAbsent(g.queue(), line::liveRatio), g.arrival()));
            }
        }
        found.sort(Preemptor.LINE);
        List<Gang> out = new ArrayList<>(found.size());
        for (Preemptor p : found) {
            out.add(p.gang());
        }
        return out;
    }

    /** A gang that may preempt, with its place in line ({@link #preemptors}); {@code ratio}: its queue's held ÷ fair share. */
    private record Preemptor(Gang gang, int priority, double ratio, long arrival) {
        static final Comparator<Preemptor> LINE = (a, b) -> LineOrder.compare(a.priority, a.ratio, a.arrival, b.priority, b.ratio, b.arrival);
    }

    /** Why {@code g} may not preempt now, or null when it may. */
    private String mayPreempt(Gang g, long now) {
        if (g.spec() == null || g.spec().isUnresolved()) {
            return "its PodGroup is not known or not usable";
        }
        if (books.admitted(g) || decisions.holds(g.key())) {
            return "it is admitted already";
        }
        if (g.backingOff(now)) {
            return "it is backing off";
        }
        if (g.memberCount() < g.minMember() || !g.tasksShort().isEmpty()) {
            return "only " + g.memberCount() + "/" + g.minMember() + " of its pods exist (nothing is evicted for pods that may never come)";
        }
        if (g.spec().preemption().preemptionPolicy() == PreemptionPolicy.NEVER) {
            return "its PodGroup's preemptionPolicy is Never";
        }
        for (Pod m : g.members()) {
            if (m.neverPreempts() && !m.isBound()) {
                return "pod " + m.id() + " has preemptionPolicy Never";
            }
        }
        String notReady = PreemptorMembers.whyNot(g, schedulerName, books.offered(), books.queueGate());
        if (notReady != null) {
            return notReady;
        }
        if (books.queueVerdict(g.queue(), line.needOf(g), g.key()) instanceof QueueAdmission.Verdict.Refused r
                && !(r.resolvable() && settings.priority())) {
            return r.reason(); // a full queue may still make room by priority: the decision counts its victims gone
        }
        return null;
    }

    // ---- decisions under way ----------------------------------------------------------------------------

    /**
     * Before reservations expire: a started decision (an eviction of it was accepted) is never abandoned while its
     * preemptor waits. When its reservation runs out with victims still stuck, only the room still missing is planned
     * (further units, besides the pods already on their way out), and the gang's room is reserved anew.
     */
    public void shortfall(long now) {
        if (evictor.ready() && synced.getAsBoolean() && handover.adopted()) {
            decisions.shortfall(now);
        }
    }

    /**
     * Finishes or rolls back what an earlier leader half did (see {@link VictimEvictions#adopt}); a started decision's
     * preemptor that still waits keeps its room: only what its kept victims do not free is planned.
     */
    private void adopt(List<PreemptionRecord> records, long now) {
        for (PreemptionRecord r : records) {
            List<Unit> kept = evictions.adopt(r);
            if (kept == null || singles.adopt(r.preemptor(), kept, now)) {
                continue; // rolled back, or a single pod's room kept
            }
            decisions.adopt(r.preemptor(), kept, now);
        }
    }

    /**
     * This process no longer leads: it forgets its decisions and the evictions it still had to make (their reservations
     * are dropped with every other; the new leader decides from the cluster). Victims not evicted yet are no longer
     * leaving; those evicted stay so until they go.
     */
    public void leadershipLost() {
        decisions.leadershipLost();
        handover.leadershipLost();
        singles.leadershipLost();
        evictions.leadershipLost();
        retryAt.clear();
    }

    // ---- reads ------------------------------------------------------------------------------------------

    /** What it would take to run {@code key} now (nothing changes). */
    public PreemptionAdvice advise(GangKey key, long now) {
        Gang g = books.gang(key);
        if (g == null || g.spec() == null) {
            return new PreemptionAdvice.Unknown(key);
        }
        if (g.running()) {
            return new PreemptionAdvice.NoneNeeded("gang " + key + " runs");
        }
        if (books.admitted(g) || decisions.holds(key)) {
            return new PreemptionAdvice.NoneNeeded("gang " + key + " is admitted: its room is reserved");
        }
        if (!g.hasPendingMember()) {
            return new PreemptionAdvice.NoneNeeded("gang " + key + " has no pod waiting to run");
        }
        if (!settings.any()) {
            return new PreemptionAdvice.CannotRun("preemption and queue reclaim are off");
        }
        String not = mayPreempt(g, now);
        if (not != null) {
            return new PreemptionAdvice.CannotRun("gang " + key + " may not preempt: " + not);
        }
        PreemptionChoice.Decision d = choice.decide(g, now);
        if (d.fitsNow()) {
            return new PreemptionAdvice.NoneNeeded("gang " + key + " fits on free room now (or on room that pods being evicted give back)");
        }
        if (d.plan() == null) {
            return new PreemptionAdvice.CannotRun("gang " + key + ": " + d.why());
        }
        List<PreemptionAdvice.VictimUnit> units = new ArrayList<>();
        for (Unit u : d.plan().victims()) {
            units.add(u.view());
        }
        return new PreemptionAdvice.Preempt(d.kind(), units, d.plan().plan().placements().size(), d.plan().victimNodes());
    }

    /** No node kube-scheduler's preemption found for the single pod {@code p} leaves every gang whole: Muster decides. */
    public void singlePodAsked(Pod p, long now) {
        if (settings.priority()) {
            singles.asked(p, now);
        }
    }

    /** Whether Muster's own decision holds room for the single pod {@code uid}. */
    public boolean preemptingForPod(String uid) {
        return singles.preemptingFor(uid);
    }

    /** Whether {@code key} is preempting: its reservation holds room its victims still leave. */
    public boolean preempting(GangKey key) {
        return decisions.holds(key);
    }

    public PreemptionStats stats() {
        return new PreemptionStats(decisions.priorityDecisions() + singles.decisions(), decisions.reclaimDecisions(),
                evictions.endedRefused(), evictions.endedOvertaken(), evictions.evicted(), evictions.refusedByBudget(), evictions.failed(),
                evictions.wasted(), times.cumulative(), times.decisions(), times.nanos());
    }
}
