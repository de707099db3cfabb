package dev.muster.demo.report;

import dev.muster.core.model.GangKey;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.queue.FairShare;
import dev.muster.demo.scenario.Settings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * How the run took capacity back: each preemption decision the extender made (heard on the allocation stream) — when,
 * for which gang, of which kind, whose pods it evicted — and the share of the cluster of the queues involved, at the
 * sample before the decision and at the first sample after the preemptor started. Pure.
 */
final class TakingBack {
    /** Decisions listed one by one; the rest are counted. */
    static final int LISTED = 12;

    private TakingBack() {}

    /** The section's lines, for the text report (the HTML report shows the same). */
    static List<String> lines(RunResult r) {
        Settings s = r.scenario().settings();
        List<String> out = new ArrayList<>();
        List<StreamRecorder.Preemption> decisions = r.stream().preemptions();
        if (!s.preemption() && !s.reclaim()) {
            out.add("Taking capacity back                    off in this scenario (settings: preemption: false, reclaim: false)");
            return out;
        }
        String on = (s.preemption() && s.reclaim() ? "priority preemption and queue reclaim on" : s.preemption() ? "priority preemption on, reclaim off"
                : "queue reclaim on, priority preemption off") + ", victims run at least " + Fmt.sim(s.victimMinRuntime().toNanos()) + " (sim) first";
        if (decisions.isEmpty()) {
            out.add("Taking capacity back                    no preemption (" + on + "): no waiting gang's room was held by lower priority in its "
                    + "queue or by a queue above its fair share long enough");
            return out;
        }
        long priority = decisions.stream().filter(d -> d.kind() == PreemptionKind.PRIORITY).count();
        Map<GangKey, GangOutcome> gangs = new LinkedHashMap<>();
        r.gangs().forEach(g -> gangs.put(g.key(), g));
        long started = decisions.stream().map(d -> gangs.get(d.preemptor())).filter(g -> g != null && g.startedAt() >= 0).map(GangOutcome::key)
                .distinct().count();
        out.add("Taking capacity back                    " + decisions.size() + " decisions (" + priority + " priority, " + (decisions.size() - priority)
                + " reclaim), " + r.evictions().size() + " pods evicted (each recreated by its controller), " + started + " preemptors started; " + on);
        for (StreamRecorder.Preemption d : decisions.subList(0, Math.min(LISTED, decisions.size()))) {
            GangOutcome preemptor = gangs.get(d.preemptor());
            long startedAt = preemptor == null ? -1 : preemptor.startedAt();
            out.add("  " + Fmt.clock(d.at()) + " " + d.kind().label() + ": " + d.preemptor() + " (" + d.queue() + ", priority " + d.priority() + ") evicted "
                    + d.victims().size() + " pods on " + d.nodes() + " nodes: " + victims(d.victims()) + "; "
                    + (startedAt >= 0 ? "it started at " + Fmt.clock(startedAt) : "it had not started by the end"));
            Set<String> queues = new LinkedHashSet<>();
            queues.add(d.queue());
            d.victims().forEach(v -> queues.add(v.queue().isEmpty() ? "" : v.queue()));
            queues.remove("");
            Optional<Sample> before = sampleAtOrBefore(r, d.at());
            Optional<Sample> after = startedAt >= 0 ? sampleAtOrAfter(r, startedAt) : Optional.empty();
            List<String> shares = new ArrayList<>();
            for (String q : queues) {
                shares.add(q + " " + share(r, before, q) + " → " + (after.isPresent() ? share(r, after, q) : "-"));
            }
            out.add("      share of the cluster before → after: " + String.join("; ", shares));
        }
        if (decisions.size() > LISTED) {
            out.add("  … " + (decisions.size() - LISTED) + " more decisions");
        }
        return out;
    }

    /** "data/etl-4 (production, 12 pods), 3 single pods". */
    private static String victims(List<Victim> victims) {
        Map<String, Integer> byOwner = new LinkedHashMap<>();
        int single = 0;
        for (Victim v : victims) {
            if (v.gang() == null) {
                single++;
            } else {
                byOwner.merge(v.gang() + " (" + v.queue() + ", priority " + v.priority(), 1, Integer::sum);
            }
        }
        List<String> parts = new ArrayList<>();
        byOwner.forEach((owner, n) -> parts.add(owner + ", " + n + (n == 1 ? " pod)" : " pods)")));
        if (single > 0) {
            parts.add(single + (single == 1 ? " single pod" : " single pods"));
        }
        return String.join(", ", parts);
    }

    private static String share(RunResult r, Optional<Sample> s, String queue) {
        FairShare.Share share = s.map(x -> x.shares().get(queue)).orElse(null);
        if (share == null) {
            return "-";
        }
        String against = FairShare.Share.against(share.held(), share.fairShare(), r.allocatable());
        return against.isEmpty() ? "-" : against;
    }

    private static Optional<Sample> sampleAtOrBefore(RunResult r, long at) {
        Sample best = null;
        for (Sample s : r.samples()) {
            if (s.at() <= at && !s.shares().isEmpty()) {
                best = s;
            }
        }
        return Optional.ofNullable(best);
    }

    private static Optional<Sample> sampleAtOrAfter(RunResult r, long at) {
        return r.samples().stream().filter(s -> s.at() >= at && !s.shares().isEmpty()).findFirst();
    }
}
