package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodHolds;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Takes room back for single pods (pods of no gang) of Muster's scheduler whose room only gangs hold. Confined to the
 * core's lock ({@link Books}); driven by {@link Preemptions}.
 *
 * <p><b>Who.</b> kube-scheduler's DefaultPreemption proposes victims on one node at a time, and Muster's preempt verb
 * drops every node whose victims would break a gang; when no node is left ({@link #asked}), the pod becomes Muster's to
 * place. Each tick the pods asked about, highest priority first (then the longest waiting), are offered one decision,
 * until one is made (a pod that found nothing is tried again after {@link #RETRY_AFTER}).
 *
 * <p><b>Whom.</b> As a gang's preemption by priority, over the same units ({@link VictimCandidates}) and with the same
 * planner ({@link PreemptionPlanner}): single pods, a gang's surplus members, or whole gangs of strictly lower priority,
 * of any queue (a single pod belongs to none) — surplus first, then lower priority, then fewer pods, then the most
 * recently started. A gang is never left running below its minMember, a gang whose disruption mode is {@code all} goes
 * whole, and budgets allow every victim together ({@link VictimOffer}).
 *
 * <p><b>Carrying out.</b> The victims are marked leaving and the pod's room on the planned node is held for it at once
 * ({@link PodHolds}: nobody else places there); the filter passes it only there; {@link VictimEvictions} checks and
 * evicts the victims as for a gang (a decision is filed under {@link #keyOf}, a key no PodGroup can have), and once
 * their evictions are sent the decision is recorded as a gang's is ({@link AllocationEvent.PreemptionDecided}: the
 * victims' PodGroups get their {@code Preempted} condition and an Event). The hold
 * ends when the pod binds (its record takes the room), goes, or when the victims' grace period plus the margin plus
 * the gang deadline has passed without its binding; then its evictions stop (evicted ones count wasted) and it may be
 * tried again. A leader change keeps it: the next leader, reading the decision's record, holds the pod's room again
 * ({@link #adopt}).
 */
final class SinglePodPreemptions {
    static final Duration RETRY_AFTER = Duration.ofSeconds(5);
    static final int TRIES_PER_TICK = 4;

    private final Books books;
    private final Ledger ledger;
    private final PreemptionSettings settings;
    private final Duration deadline;
    private final String schedulerName;
    private final VictimCandidates candidates;
    private final PreemptionPlanner planner;
    private final VictimEvictions evictions;
    private final Map<String, Long> asking = new LinkedHashMap<>(); // pod uid → not before (the core's clock)
    private final Map<GangKey, Decision> active = new HashMap<>(); // decision key → its decision, while its hold lasts
    private long decisions;

    /** One decision carried out: its pod and priority, the node it holds there, until when, and its victims. */
    private record Decision(String uid, int priority, String node, long until, List<Victim> victims) {}

    SinglePodPreemptions(Books books, PreemptionSettings settings, Duration deadline, String schedulerName, VictimCandidates candidates,
                         GangPlanner gangPlanner, VictimEvictions evictions) {
        this.books = books;
        this.ledger = books.ledger();
        this.settings = settings;
        this.deadline = deadline;
        this.schedulerName = schedulerName;
        this.candidates = candidates;
        this.planner = new PreemptionPlanner(gangPlanner);
        this.evictions = evictions;
    }

    /** The key {@code p}'s decision is filed under. */
    static GangKey keyOf(Pod p) {
        return AllocationEvent.PreemptionDecided.singlePod(p.id().namespace(), p.id().name());
    }

    /**
     * The record of decision {@code key} once every victim passed its check and the evictions are sent (as a gang's
     * decision is recorded): the victims' PodGroups get their {@code Preempted} condition from it. Null when it ended.
     */
    AllocationEvent.PreemptionDecided committed(GangKey key) {
        Decision d = active.get(key);
        if (d == null) {
            return null;
        }
        java.util.Set<String> nodes = new java.util.HashSet<>();
        for (Victim v : d.victims()) {
            nodes.add(v.node());
        }
        return new AllocationEvent.PreemptionDecided(key, "", d.priority(), PreemptionKind.PRIORITY, d.victims(), nodes.size());
    }

    /** Whether {@code key} is a single pod's decision. */
    boolean owns(GangKey key) {
        return active.containsKey(key);
    }

    /** Whether Muster holds room for the pod {@code uid} (its decision is under way). */
    boolean preemptingFor(String uid) {
        PodHolds.Hold h = ledger.holds().of(uid);
        return h != null && h.source() == PodHolds.Source.MUSTER;
    }

    /** kube-scheduler's preemption found no node for {@code p} whose victims leave every gang whole: Muster may decide. */
    void asked(Pod p, long now) {
        if (mayPreempt(p) && !preemptingFor(p.uid())) {
            asking.putIfAbsent(p.uid(), now);
        }
    }

    private boolean mayPreempt(Pod p) {
        return p.gang() == null && !p.hasMembershipConflict() && !p.isBound() && !p.terminating() && !p.neverPreempts()
                && !p.constraints().gated() // kube-scheduler does not try a gated pod: room freed for it would go to others
                && (!p.constraints().hasUndecided() || !books.offered().of(p.uid()).isEmpty())
                && (p.schedulerName().isEmpty() || p.schedulerName().equals(schedulerName));
    }

    /** Ends decisions whose pod bound, went, or waited past its hold. */
    void follow(long now) {
        for (Iterator<Map.Entry<GangKey, Decision>> it = active.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<GangKey, Decision> e = it.next();
            Decision d = e.getValue();
            Pod p = books.pod(d.uid());
            PodRecord r = ledger.pod(d.uid());
            boolean bound = r != null;
            if (bound || p == null || p.terminating() || !preemptingFor(d.uid()) || now - d.until() >= 0) {
                it.remove();
                if (!bound) {
                    ledger.holds().release(d.uid());
                }
                // placed on its held room, even if it went again since the last tick: its victims made room it used
                boolean ran = ledger.holds().tookHeldRoom(d.uid());
                evictions.end(e.getKey(), ran);
                if (!bound && p != null) {
                    asking.put(d.uid(), now + RETRY_AFTER.toNanos()); // may be planned again
                }
            }
        }
    }

    /** Offers the pods asked about one decision each, highest priority first, until one is made; whether one was. */
    boolean tick(long now) {
        List<Pod> waiting = new ArrayList<>();
        for (Iterator<Map.Entry<String, Long>> it = asking.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Long> e = it.next();
            Pod p = books.pod(e.getKey());
            if (p == null || !mayPreempt(p) || ledger.pod(p.uid()) != null) {
                it.remove();
            } else if (now - e.getValue() >= 0 && !preemptingFor(p.uid())) {
                waiting.add(p);
            }
        }
        waiting.sort(Comparator.comparingInt((Pod p) -> -p.priority()).thenComparingLong(p -> asking.get(p.uid())));
        int tries = 0;
        for (Pod p : waiting) {
            if (tries++ >= TRIES_PER_TICK) {
                break;
            }
            PreemptionPlanner.Result r = plan(p, now);
            switch (r) {
                case PreemptionPlanner.Result.Planned planned -> {
                    carryOut(p, planned, now);
                    return true;
                }
                case PreemptionPlanner.Result.FitsNow f -> asking.remove(p.uid()); // kube-scheduler places it on free room
                case PreemptionPlanner.Result.Unfit u -> asking.put(p.uid(), now + RETRY_AFTER.toNanos());
            }
        }
        return false;
    }

    /** The fewest units of lower priority with which {@code p} fits (see the class comment). Changes nothing. */
    PreemptionPlanner.Result plan(Pod p, long now) {
        return plan(p, now, doubleCounted(p.priority()));
    }

    /**
     * A decision an earlier leader recorded for the single pod of {@code key} started ({@link VictimEvictions#adopt}):
     * while the pod still waits it keeps its room, as a gang does. It is planned on free room plus the room of
     * {@code kept} (its victims on their way out), with further victims only where that is not enough (dry-run and
     * recorded like any), and the room is held for it as for a new decision. Whether it is (false: the decision only
     * finishes what it started, and the pod may ask again).
     */
    boolean adopt(GangKey key, List<Unit> kept, long now) {
        String prefix = AllocationEvent.PreemptionDecided.SINGLE_POD_PREFIX;
        Pod p = key.name().startsWith(prefix) ? books.podNamed(key.namespace(), key.name().substring(prefix.length())) : null;
        if (p == null || !mayPreempt(p) || ledger.pod(p.uid()) != null || preemptingFor(p.uid())) {
            return false;
        }
        Map<String, Resources> room = doubleCounted(p.priority()); // kept victims are leaving: their room is in it
        PreemptionPlanner.Result.Planned planned = switch (plan(p, now, room)) {
            case PreemptionPlanner.Result.FitsNow f -> new PreemptionPlanner.Result.Planned(f.plan(), kept);
            case PreemptionPlanner.Result.Planned more -> {
                List<Unit> all = new ArrayList<>(kept);
                all.addAll(more.victims());
                yield new PreemptionPlanner.Result.Planned(more.plan(), all);
            }
            case PreemptionPlanner.Result.Unfit u -> null;
        };
        if (planned != null) {
            carryOut(p, planned, now, kept.size());
        }
        return planned != null;
    }

    private PreemptionPlanner.Result plan(Pod p, long now, Map<String, Resources> room) {
        int priority = p.priority();
        VictimOffer offer = new VictimOffer(candidates.byPriority(now, settings.victimMinRuntime().toNanos(), priority, c -> true), candidates, VictimOffer.Rule.ANY, evictions::refusedLately);
        // placed only where its own node constraints let it, and, for what only kube-scheduler judges, where it was offered
        GangPlanner.Member member = new GangPlanner.Member(p.uid(), p.task(), p.request(), p.constraints(), null);
        if (p.constraints().hasUndecided()) {
            member = member.onlyOn(books.offered().of(p.uid()));
        }
        GangAdmission.PlanInput in = new GangAdmission.PlanInput(List.of(member),
                new GangPlanner.Requirement(1, Map.of(), 0, Map.of()), null);
        return planner.plan(ledger.nodes(), ledger::node, in, room, offer);
    }

    private void carryOut(Pod p, PreemptionPlanner.Result.Planned planned, long now) {
        carryOut(p, planned, now, -1);
    }

    /** {@code kept}: how many of the plan's first units an adopted decision already took (-1: a new decision). */
    private void carryOut(Pod p, PreemptionPlanner.Result.Planned planned, long now, int kept) {
        String node = planned.plan().placements().getFirst().node();
        long grace = 0;
        for (Unit u : planned.victims()) {
            for (Victim v : u.pods()) {
                Pod victim = books.pod(v.pod().uid());
                grace = Math.max(grace, victim == null ? Pod.DEFAULT_GRACE_SECONDS : victim.graceSeconds());
            }
        }
        long until = now + Duration.ofSeconds(grace).plus(settings.margin()).plus(deadline).toNanos();
        GangKey key = keyOf(p);
        asking.remove(p.uid());
        List<Victim> victims = new ArrayList<>();
        for (Unit u : planned.victims()) {
            victims.addAll(u.pods());
        }
        active.put(key, new Decision(p.uid(), p.priority(), node, until, victims));
        if (kept < 0) {
            decisions++;
            evictions.start(key, planned.victims(), "preempted by pod " + p.id().namespace() + "/" + p.id().name() + " (priority "
                    + p.priority() + ") to place it on node " + node); // marks them leaving before the hold takes their room
        } else if (planned.victims().size() > kept) {
            evictions.extend(key, planned.victims().subList(kept, planned.victims().size())); // the room still missing
        }
        ledger.holds().hold(new PodHolds.Hold(p.uid(), node, p.request(), PodHolds.Source.MUSTER, p.priority()));
        ledger.holds().giveWay(node, p.priority()); // nominations of lower priority it planned on
    }

    /** A dry run refused a victim: nothing was evicted; the pod's room is given back and it is tried again later. */
    void checkFailed(GangKey key) {
        Decision d = active.remove(key);
        if (d != null) {
            ledger.holds().release(d.uid());
            ledger.holds().tookHeldRoom(d.uid()); // forgotten with its decision
            asking.put(d.uid(), books.now() + RETRY_AFTER.toNanos());
        }
    }

    /** This process no longer leads: its holds go (the new leader decides from the cluster). */
    void leadershipLost() {
        for (Decision d : active.values()) {
            ledger.holds().release(d.uid());
            ledger.holds().tookHeldRoom(d.uid()); // forgotten with its decision
        }
        active.clear();
        asking.clear();
    }

    /** Decisions made since start. */
    long decisions() {
        return decisions;
    }

    /**
     * Room free to plan on for a pod of {@code priority} that the ledger counts taken: on every node, the room of
     * nominations of lower priority, and the room of pods leaving ({@link PreemptionChoice#roomCountedTaken}).
     */
    private Map<String, Resources> doubleCounted(int priority) {
        return PreemptionChoice.roomCountedTaken(ledger, priority, new HashMap<>());
    }
}
