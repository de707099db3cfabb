package dev.muster.core.preempt;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.WaitingLine;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.preempt.PreemptionPlanner.Part;
import dev.muster.core.queue.FairShare;
import dev.muster.core.queue.QueueAdmission;
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

    PreemptionChoice(Books books, GangAdmission admission, WaitingLine line, PreemptionSettings settings, VictimCandidates candidates) {
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

    /** A decision: the plan and its kind, or why not (plan null). */
    record Decision(PreemptionPlanner.Result.Planned plan, PreemptionKind kind, String why, boolean fitsNow) {
        static Decision not(String why) {
            return new Decision(null, null, why, false);
        }
    }

    /** By priority first, then by reclaim. */
    Decision decide(Gang g, long now) {
        GangAdmission.PlanInput in = admission.preemptionInputOf(g); // members only where their own constraints let them
        Map<String, Resources> own = ownRoom(g);
        List<String> why = new ArrayList<>();
        Map<String, String> protectedBy = new LinkedHashMap<>();
        if (settings.priority()) {
            VictimOffer offer = byPriority(g, now);
            Decision d = tryKind(g, PreemptionKind.PRIORITY, in, own, offer);
            protectedBy.putAll(offer.protectedBy());
            if (d.plan() != null || d.fitsNow()) {
                return d;
            }
            why.add(d.why());
        } else {
            why.add("preemption by priority is off");
        }
        if (settings.reclaim()) {
            Decision d = reclaim(g, in, own, now, protectedBy);
            if (d.plan() != null || d.fitsNow()) {
                return d;
            }
            why.add(d.why());
        } else {
            why.add("queue reclaim is off");
        }
        String protectedNote = protectedBy.isEmpty() ? "" : "; protected by a PodDisruptionBudget: " + protectedList(protectedBy);
        return Decision.not(String.join("; ", why) + protectedNote);
    }

    private Decision tryKind(Gang g, PreemptionKind kind, GangAdmission.PlanInput in, Map<String, Resources> own, VictimOffer units) {
        String whom = kind == PreemptionKind.PRIORITY ? "every pod of lower priority (" + priorityOf(g) + ") in queue " + g.queue()
                + " and every single pod of lower priority" : "what queues above their fair share may give back";
        if (!units.reach(1)) {
            return Decision.not(kind == PreemptionKind.PRIORITY ? "no running pod of lower priority than " + priorityOf(g)
                    + " in queue " + g.queue() + " (nor a single pod) may be taken" : "no queue above its fair share has room to give back");
        }
        PreemptionPlanner.Result r = planner.plan(ledger.nodes(), ledger::node, in, own, units);
        return switch (r) {
            case PreemptionPlanner.Result.FitsNow f -> new Decision(null, kind, "it fits on free room now", true);
            case PreemptionPlanner.Result.Unfit u -> Decision.not("even without " + whom + " it would not fit: " + u.reason());
            case PreemptionPlanner.Result.Planned p -> {
                if (books.queueVerdict(g.queue(), p.plan().total(), g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
                    yield Decision.not(refused.reason());
                }
                yield new Decision(p, kind, "", false);
            }
        };
    }

    /**
     * Units of strictly lower priority in the gang's queue, and single pods of lower priority: surplus first, then lower
     * priority, then fewer pods, then the most recently started.
     */
    private VictimOffer byPriority(Gang g, long now) {
        int priority = priorityOf(g);
        List<VictimCandidates.Candidate> list = candidates.collect(now, settings.victimMinRuntime().toNanos(),
                c -> c.priority() < priority && (c.gang() == null || c.queue().equals(g.queue())) && !g.key().equals(c.gangKey()));
        list.sort(Comparator.comparingInt((VictimCandidates.Candidate c) -> c.part() == Part.SURPLUS ? 0 : 1)
                .thenComparingInt(VictimCandidates.Candidate::priority)
                .thenComparingInt(VictimCandidates.Candidate::pods)
                .thenComparing(Comparator.comparingLong(VictimCandidates.Candidate::since).reversed()));
        return new VictimOffer(list, candidates, VictimOffer.Rule.ANY);
    }

    /** Reclaim for a gang whose queue is below its fair share (see the class comment). */
    private Decision reclaim(Gang g, GangAdmission.PlanInput in, Map<String, Resources> own, long now, Map<String, String> protectedBy) {
        Map<String, FairShare.Share> shares = line.shares();
        FairShare.Share mine = shares.get(g.queue());
        if (mine == null) {
            return Decision.not("queue " + g.queue() + " has no fair share yet");
        }
        Resources myHeld = ledger.heldByQueue(g.queue());
        if (FairShare.ratio(myHeld, mine.fairShare()) >= 1 - EPSILON) {
            return Decision.not("queue " + g.queue() + " is not below its fair share, so it reclaims nothing");
        }
        Map<String, Double> above = new HashMap<>(); // queues that may give back → how far above their share they stand
        for (FairShare.Share s : shares.values()) {
            QueueSpec v = books.queue(s.queue());
            double ratio = FairShare.ratio(ledger.heldByQueue(s.queue()), s.fairShare());
            if (v != null && v.reclaimable() && !s.queue().equals(g.queue()) && ratio > 1 + EPSILON) {
                above.put(s.queue(), ratio);
            }
        }
        List<VictimCandidates.Candidate> list = candidates.collect(now, settings.victimMinRuntime().toNanos(),
                c -> c.gang() != null && above.containsKey(c.queue()));
        list.sort(Comparator.comparingDouble((VictimCandidates.Candidate c) -> -above.get(c.queue()))
                .thenComparingInt(c -> c.part() == Part.SURPLUS ? 0 : 1)
                .thenComparingInt(VictimCandidates.Candidate::priority)
                .thenComparing(Comparator.comparingLong(VictimCandidates.Candidate::since).reversed()));
        // each taken only while its queue keeps its fair share and guarantee (a prefix of the offer keeps them too)
        Map<String, Resources> heldAfter = new HashMap<>();
        VictimOffer.Rule keepsShare = u -> {
            Resources before = heldAfter.computeIfAbsent(u.queue(), ledger::heldByQueue);
            Resources after = before.minus(u.total());
            if (FairShare.ratio(after, shares.get(u.queue()).fairShare()) >= 1 - EPSILON
                    && keepsGuarantee(books.queue(u.queue()).guarantee(), before, after)) {
                heldAfter.put(u.queue(), after);
                return true;
            }
            return false;
        };
        VictimOffer offer = new VictimOffer(list, candidates, keepsShare);
        Decision d = tryKind(g, PreemptionKind.RECLAIM, in, own, offer);
        protectedBy.putAll(offer.protectedBy());
        if (d.plan() != null && FairShare.ratio(myHeld.plus(d.plan().plan().total()), mine.fairShare()) > 1 + EPSILON) {
            return Decision.not("reclaiming would take queue " + g.queue() + " above its fair share of "
                    + FairShare.Share.against(myHeld, mine.fairShare(), line.clusterTotal()));
        }
        return d;
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

    /** Room the ledger counts taken that is the gang's own: the set-aside kept for it as the gang next in line. */
    private Map<String, Resources> ownRoom(Gang g) {
        Reservation aside = ledger.setAside();
        if (aside == null || !aside.gang().equals(g.key())) {
            return Map.of();
        }
        Map<String, Resources> own = new HashMap<>();
        for (Slot s : aside.slots()) {
            own.merge(s.node(), s.request(), Resources::plus);
        }
        return own;
    }

    private static String protectedList(Map<String, String> protectedBy) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<String, String> e : protectedBy.entrySet()) {
            if (out.size() == 3) {
                out.add("and " + (protectedBy.size() - 3) + " more");
                break;
            }
            out.add(e.getKey() + " by " + e.getValue());
        }
        return String.join(", ", out);
    }
}
