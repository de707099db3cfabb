package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.gang.WaitingLine;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.FirstFew;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import dev.muster.core.queue.FairShare;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Whom a waiting gang would take room from, and why not: by priority first, then by reclaim (the rules are in
 * {@link Preemptions}' class comment). It orders the candidates, applies the rules a prefix must keep (a queue's fair
 * share and guarantee for reclaim), and has {@link PreemptionPlanner} choose the fewest; it changes nothing, so the tick
 * and the dry run decide alike. Confined to the core's lock.
 */
final class PreemptionChoice {
    private static final double EPSILON = 1e-9;

    private final Books books;
    private final Ledger ledger;
    private final GangAdmission admission;
    private final WaitingLine line;
    private final PreemptionSettings settings;
    private final PreemptionPlanner planner;
    private final VictimCandidates candidates;
    private final java.util.function.Predicate<String> refusedLately;

    PreemptionChoice(Books books, GangAdmission admission, WaitingLine line, PreemptionSettings settings, VictimCandidates candidates,
                     java.util.function.Predicate<String> refusedLately) {
        this.refusedLately = refusedLately;
        this.books = books;
        this.ledger = books.ledger();
        this.admission = admission;
        this.line = line;
        this.settings = settings;
        this.planner = new PreemptionPlanner(admission.planner());
        this.candidates = candidates;
    }

    /** A gang's priority: its PodGroup's own, else its highest member's. */
    static int priorityOf(Gang g) {
        Integer own = g.spec() == null ? null : g.spec().preemption().priority();
        return own != null ? own : g.priority();
    }

    /**
     * A decision: the plan and its kind, or why not (plan null); {@code fitsOn}: where the gang fits without taking
     * anyone's room (on free room, or on room pods leaving give back), else null.
     */
    record Decision(PreemptionPlanner.Result.Planned plan, PreemptionKind kind, String why, GangPlanner.Result.Planned fitsOn) {
        static Decision not(String why) {
            return new Decision(null, null, why, null);
        }

        boolean fitsNow() {
            return fitsOn != null;
        }
    }

    /** By priority first, then by reclaim. */
    Decision decide(Gang g, long now) {
        return decide(g, now, List.of(), Map.of());
    }

    /** As {@link #decide(Gang, long)}, with {@code promised} room (per node) already given to gangs earlier in line this tick. */
    Decision decide(Gang g, long now, Map<String, Resources> promised) {
        return decide(g, now, List.of(), promised);
    }

    /**
     * By priority first, then by reclaim, for a gang whose earlier decision already took {@code kept} (pods on their way
     * out for it: their room, counted with every leaving pod's, is the gang's; their queues no longer hold them): only
     * the room still missing is planned. The plan's victims are {@code kept} first, then the further units.
     */
    Decision decide(Gang g, long now, List<Unit> kept) {
        return decide(g, now, kept, Map.of());
    }

    private Decision decide(Gang g, long now, List<Unit> kept, Map<String, Resources> promised) {
        GangAdmission.PlanInput in = admission.preemptionInputOf(g); // members only where their own constraints let them
        Map<String, Resources> own = ownRoom(g, promised);
        List<String> why = new ArrayList<>();
        Map<String, String> protectedBy = new LinkedHashMap<>();
        if (settings.priority()) {
            Decision d = byPriority(g, in, own, kept, now, protectedBy);
            if (d.plan() != null || d.fitsNow()) {
                return d;
            }
            why.add(d.why());
        } else {
            why.add("preemption by priority is off");
        }
        if (settings.reclaim()) {
            Decision d = reclaim(g, in, own, kept, now, protectedBy);
            if (d.plan() != null || d.fitsNow()) {
                return d;
            }
            why.add(d.why());
        } else {
            why.add("queue reclaim is off");
        }
        String protectedNote = protectedBy.isEmpty() ? "" : "; protected by a PodDisruptionBudget: " + FirstFew.of(protectedBy.entrySet().stream().map(e -> e.getKey() + " by " + e.getValue()).toList(), 3);
        return Decision.not(String.join("; ", why) + protectedNote);
    }

    /**
     * Plans {@code g} with {@code mandatory} gone (victims its queue's quota needs gone: their room is the gang's too) and
     * the fewest further units of {@code offer}; the queue's verdict counts every victim of its own queue gone.
     */
    private Decision tryKind(Gang g, PreemptionKind kind, GangAdmission.PlanInput in, Map<String, Resources> own, List<Unit> kept,
                             List<Unit> mandatory, VictimOffer offer) {
        String whom = kind == PreemptionKind.PRIORITY ? "every pod of lower priority (" + priorityOf(g) + ") in queue " + g.queue()
                + " and every single pod of lower priority" : "what queues above their fair share may give back";
        if (kept.isEmpty() && mandatory.isEmpty() && !offer.reach(1)) {
            return Decision.not(kind == PreemptionKind.PRIORITY ? "no running pod of lower priority than " + priorityOf(g)
                    + " in queue " + g.queue() + " (nor a single pod) may be taken" : "no queue above its fair share has room to give back");
        }
        Map<String, Resources> room = own;
        PreemptionPlanner.Units units = offer;
        if (!mandatory.isEmpty()) {
            room = new HashMap<>(own); // kept victims are leaving: their room is in own already
            for (Unit u : mandatory) {
                for (Victim v : u.pods()) {
                    room.merge(v.node(), v.resources(), Resources::plus);
                }
            }
            units = offer.without(mandatory);
        }
        PreemptionPlanner.Result r = planner.plan(ledger.nodes(), ledger::node, in, room, units);
        PreemptionPlanner.Result.Planned planned = switch (r) {
            case PreemptionPlanner.Result.FitsNow f -> mandatory.isEmpty() && kept.isEmpty() ? null
                    : new PreemptionPlanner.Result.Planned(f.plan(), concat(kept, mandatory));
            case PreemptionPlanner.Result.Unfit u -> null;
            case PreemptionPlanner.Result.Planned p -> mandatory.isEmpty() && kept.isEmpty() ? p
                    : new PreemptionPlanner.Result.Planned(p.plan(), concat(kept, concat(mandatory, p.victims())));
        };
        if (planned == null) {
            return r instanceof PreemptionPlanner.Result.Unfit u ? Decision.not("even without " + whom + " it would not fit: " + u.reason())
                    : new Decision(null, kind, "it fits on free room now, or on room pods leaving give back", ((PreemptionPlanner.Result.FitsNow) r).plan());
        }
        // kept victims are no longer held by their queue: only the further ones count as going
        List<Unit> going = planned.victims().subList(kept.size(), planned.victims().size());
        if (books.queueVerdict(g.queue(), planned.plan().total(), g.key(), goingFrom(g.queue(), going))
                instanceof QueueAdmission.Verdict.Refused refused) {
            return Decision.not(refused.reason());
        }
        return new Decision(planned, kind, "", null);
    }

    private static List<Unit> concat(List<Unit> a, List<Unit> b) {
        List<Unit> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** What {@code victims} free of {@code queue}'s quota. */
    private static Resources goingFrom(String queue, List<Unit> victims) {
        Resources going = Resources.ZERO;
        for (Unit u : victims) {
            if (u.gang() != null && u.queue().equals(queue)) {
                going = going.plus(u.total());
            }
        }
        return going;
    }

    /**
     * By priority; when the gang's queue is full for it, the first units of its own queue whose going makes its quota
     * room are taken whatever the room says (the verdict counts them gone: without them nothing of lower priority in a
     * queue at its capability would ever make way).
     */
    private Decision byPriority(Gang g, GangAdmission.PlanInput in, Map<String, Resources> own, List<Unit> kept, long now,
                                Map<String, String> protectedBy) {
        VictimOffer offer = priorityOffer(g, now);
        List<Unit> mandatory = List.of();
        Resources need = line.needOf(g);
        if (books.queueVerdict(g.queue(), need, g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
            if (!refused.resolvable()) {
                return Decision.not(refused.reason());
            }
            mandatory = quotaUnits(g, need, offer);
            protectedBy.putAll(offer.protectedBy());
            if (mandatory == null) {
                return Decision.not(refused.reason() + ", and the pods of lower priority in it that may be taken do not make that room");
            }
        }
        Decision d = tryKind(g, PreemptionKind.PRIORITY, in, own, kept, mandatory, offer);
        protectedBy.putAll(offer.protectedBy());
        return d;
    }

    /** The first units of the gang's own queue in {@code offer} with which its quota admits {@code need}, or null. */
    private List<Unit> quotaUnits(Gang g, Resources need, VictimOffer offer) {
        List<Unit> out = new ArrayList<>();
        Resources going = Resources.ZERO;
        for (int k = 1; offer.reach(k); k++) {
            Unit u = offer.prefix(k).get(k - 1);
            if (u.gang() == null || !u.queue().equals(g.queue())) {
                continue;
            }
            out.add(u);
            going = going.plus(u.total());
            if (books.queueVerdict(g.queue(), need, g.key(), going) instanceof QueueAdmission.Verdict.Admitted) {
                return out;
            }
        }
        return null;
    }

    /**
     * Units of strictly lower priority in the gang's queue, and single pods of lower priority: surplus first, then lower
     * priority, then fewer pods, then the most recently started.
     */
    private VictimOffer priorityOffer(Gang g, long now) {
        int priority = priorityOf(g);
        var ordered = candidates.byPriority(now, settings.victimMinRuntime().toNanos(), priority,
                c -> (c.gang() == null || c.queue().equals(g.queue())) && !g.key().equals(c.gangKey()));
        return new VictimOffer(ordered, candidates, VictimOffer.Rule.ANY, refusedLately);
    }

    /** Reclaim for a gang whose queue is below its fair share (see the class comment). */
    private Decision reclaim(Gang g, GangAdmission.PlanInput in, Map<String, Resources> own, List<Unit> kept, long now,
                             Map<String, String> protectedBy) {
        Map<String, FairShare.Share> shares = line.shares();
        FairShare.Share mine = shares.get(g.queue());
        if (mine == null) {
            return Decision.not("queue " + g.queue() + " has no fair share yet");
        }
        Resources myHeld = ledger.heldByQueue(g.queue());
        double band = settings.reclaimBand();
        if (FairShare.ratio(myHeld, mine.fairShare()) >= 1 - band - EPSILON) {
            return Decision.not("queue " + g.queue() + (band > 0 ? " is not below its fair share by more than the band ("
                    + Math.round(band * 100) + "% of it)" : " is not below its fair share") + ", so it reclaims nothing");
        }
        Map<String, Double> above = new HashMap<>(); // queues that may give back → how far above their share they stand
        for (FairShare.Share s : shares.values()) {
            QueueSpec v = books.queue(s.queue());
            double ratio = FairShare.ratio(ledger.heldByQueue(s.queue()), s.fairShare());
            if (v != null && v.reclaimable() && !s.queue().equals(g.queue()) && ratio > 1 + band + EPSILON) {
                above.put(s.queue(), ratio);
            }
        }
        List<VictimCandidates.Candidate> list = candidates.gangs(now, settings.victimMinRuntime().toNanos(),
                c -> above.containsKey(c.queue()));
        list.sort(Comparator.comparingDouble((VictimCandidates.Candidate c) -> -above.get(c.queue()))
                .thenComparingInt(c -> c.part() == Part.SURPLUS ? 0 : 1)
                .thenComparingInt(VictimCandidates.Candidate::priority)
                .thenComparing(Comparator.comparingLong(VictimCandidates.Candidate::since).reversed()));
        // each taken only while its queue keeps its fair share — on the dominant resource, and on each resource the gang
        // lacks — and its guarantee (a prefix of the offer keeps them too)
        Resources need = line.needOf(g);
        Resources free = ledger.freeRoom();
        List<Integer> lacking = new ArrayList<>();
        for (int i = 0; i < need.width(); i++) {
            if (i != ResourceNames.PODS_INDEX && need.get(i) > free.get(i)) {
                lacking.add(i);
            }
        }
        Map<String, Resources> heldAfter = new HashMap<>();
        VictimOffer.Rule keepsShare = u -> {
            Resources before = heldAfter.computeIfAbsent(u.queue(), ledger::heldByQueue);
            Resources after = before.minus(u.total());
            Resources fair = shares.get(u.queue()).fairShare();
            if (FairShare.ratio(after, fair) >= 1 - EPSILON && keepsShareOf(lacking, fair, u.total(), after)
                    && keepsGuarantee(books.queue(u.queue()).guarantee(), before, after)) {
                heldAfter.put(u.queue(), after);
                return true;
            }
            return false;
        };
        VictimOffer offer = new VictimOffer(list.iterator(), candidates, keepsShare, refusedLately);
        Decision d = tryKind(g, PreemptionKind.RECLAIM, in, own, kept, List.of(), offer);
        protectedBy.putAll(offer.protectedBy());
        if (d.plan() != null && FairShare.ratio(myHeld.plus(d.plan().plan().total()), mine.fairShare()) > 1 + EPSILON) {
            return Decision.not("reclaiming would take queue " + g.queue() + " above its fair share of "
                    + FairShare.Share.against(myHeld, mine.fairShare(), line.clusterTotal()));
        }
        return d;
    }

    /** Whether a queue giving back {@code taken} and holding {@code after} keeps its fair share of each {@code lacking} resource it gives. */
    private static boolean keepsShareOf(List<Integer> lacking, Resources fair, Resources taken, Resources after) {
        for (int i : lacking) {
            if (taken.get(i) > 0 && after.get(i) < fair.get(i)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a queue holding {@code after} instead of {@code before} keeps what its guarantee promises. */
    private static boolean keepsGuarantee(Resources guarantee, Resources before, Resources after) {
        for (int i = 0; i < guarantee.width(); i++) {
            if (guarantee.get(i) > 0 && after.get(i) < Math.min(guarantee.get(i), before.get(i))) {
                return false;
            }
        }
        return true;
    }

    /**
     * Room the ledger counts taken, which is free to plan on: the set-aside kept for the gang as the gang next in line,
     * nominations of lower priority, and on every node the room of pods leaving (see {@link #roomCountedTaken}), less
     * {@code promised}: room this tick already found a waiting gang a place on.
     */
    private Map<String, Resources> ownRoom(Gang g, Map<String, Resources> promised) {
        Map<String, Resources> own = new HashMap<>();
        Reservation aside = ledger.setAside();
        if (aside != null && aside.gang().equals(g.key())) {
            for (Slot s : aside.slots()) {
                own.merge(s.node(), s.request(), Resources::plus);
            }
        }
        promised.forEach((node, room) -> own.merge(node, room.times(-1), Resources::plus));
        return roomCountedTaken(ledger, priorityOf(g), own);
    }

    /**
     * Adds to {@code own} the room the ledger counts taken that a preemptor of {@code priority} may plan on: on every
     * node, nominations of lower priority ({@link dev.muster.core.ledger.PodHolds#yieldingTo}), and the room of every pod
     * leaving (evicted for a decision, or about to be: {@link Ledger#markLeaving}). A leaving pod's room is counted used
     * until it is gone, and the part of it its preemptor's reservation covers is counted reserved as well; what it frees
     * beyond that reservation comes free for whoever is next, so it is no one's to take by another eviction (as Volcano
     * counts a node's releasing room in its future idle). Free room plus this is what the node will have once the pods
     * leaving are gone. Returns {@code own}.
     */
    static Map<String, Resources> roomCountedTaken(Ledger ledger, int priority, Map<String, Resources> own) {
        ledger.holds().yieldingTo(priority).forEach((node, room) -> own.merge(node, room, Resources::plus));
        for (NodeEntry e : ledger.nodes()) {
            Resources leaving = e.leaving();
            if (!leaving.isZero()) {
                own.merge(e.name(), leaving, Resources::plus);
            }
        }
        return own;
    }
}
