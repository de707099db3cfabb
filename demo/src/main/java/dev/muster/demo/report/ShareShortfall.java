package dev.muster.demo.report;

import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.demo.scenario.NodeGroup;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Why a queue sat below its fair share, read from the run: at every sample in which a queue held at least
 * {@value #POINTS} points of the cluster less than its fair share (on the resource that decides its place in line), the
 * first of these that is true at that moment is its cause:
 * <ol>
 *   <li>{@link Cause#NOTHING_WAITING}: none of its gangs was waiting (its share is room it was not asking for yet);</li>
 *   <li>{@link Cause#ARRIVING}: its waiting gangs had arrived within the last {@link #SETTLING} (simulated) and were
 *       being placed;</li>
 *   <li>{@link Cause#CAPABILITY}: gangs were waiting, but its capability (with the quota kept for its gang next in
 *       line) allowed none of them beside what it held;</li>
 *   <li>{@link Cause#CLUSTER_FULL}: its smallest waiting gang needed more than the cluster had free — other queues
 *       held the room, and reclaim could not take enough of it back (it takes only what queues hold beyond their fair
 *       share, from gangs that ran their minimum time), or reclaim is off;</li>
 *   <li>{@link Cause#SHAPE}: enough was free in the cluster as a whole, but its gang did not fit the free room node by
 *       node (GPU pods fit GPU nodes only; room scattered in pieces smaller than a pod), or that room was set aside for
 *       the gang next in line.</li>
 * </ol>
 * Pure.
 */
final class ShareShortfall {
    /** How far below its fair share (percentage points of the cluster) a queue must sit for a sample to count. */
    static final int POINTS = 10;

    /** A gang that has waited less than this is still being placed, not held back. */
    static final long SETTLING = 60_000_000_000L;

    enum Cause { NOTHING_WAITING, CAPABILITY, ARRIVING, CLUSTER_FULL, SHAPE }

    /**
     * What the explanation is drawn from.
     *
     * @param capabilities each queue's capability (absent: unlimited)
     * @param nodes        the cluster's node groups (which nodes a pod can fit at all)
     * @param reclaim      whether the extender could take borrowed room back (queue reclaim on)
     * @param victimMinRuntime how long (simulated) a victim must have run first
     */
    record Run(List<Sample> samples, List<GangOutcome> gangs, Map<String, Resources> capabilities, Resources total, List<NodeGroup> nodes,
               boolean reclaim, java.time.Duration victimMinRuntime) {
        /** A run with reclaim off. */
        Run(List<Sample> samples, List<GangOutcome> gangs, Map<String, Resources> capabilities, Resources total, List<NodeGroup> nodes) {
            this(samples, gangs, capabilities, total, nodes, false, java.time.Duration.ZERO);
        }
    }

    /** One queue's explanation, as text for people, and the samples counted per cause. */
    record Explanation(String queue, int belowSamples, Map<Cause, Integer> samplesByCause, String text) {}

    private ShareShortfall() {}

    /** One explanation per queue that sat {@value #POINTS} points or more below its fair share at some sample. */
    static List<Explanation> of(RunResult r) {
        Map<String, Resources> capabilities = new java.util.HashMap<>();
        r.queues().forEach(q -> {
            if (q.spec().capability() != null) {
                capabilities.put(q.name(), q.spec().capability());
            }
        });
        return of(new Run(r.samples(), r.gangs(), capabilities, r.allocatable(), r.scenario().nodes(), r.scenario().settings().reclaim(),
                r.scenario().settings().victimMinRuntime()));
    }

    static List<Explanation> of(Run r) {
        TreeSet<String> queues = new TreeSet<>();
        r.samples().forEach(s -> queues.addAll(s.shares().keySet()));
        List<Explanation> out = new ArrayList<>();
        for (String q : queues) {
            Explanation e = of(r, q);
            if (e != null) {
                out.add(e);
            }
        }
        return out;
    }

    private static Explanation of(Run r, String queue) {
        Resources total = r.total();
        List<GangOutcome> gangs = r.gangs().stream().filter(g -> g.queue().equals(queue)).toList();
        Resources capability = r.capabilities().get(queue);
        Map<Cause, Integer> counts = new EnumMap<>(Cause.class);
        Map<Cause, String> example = new EnumMap<>(Cause.class);
        int below = 0;
        double heldSum = 0;
        double fairSum = 0;
        int resource = -1;
        long step = r.samples().size() > 1 ? r.samples().get(1).at() - r.samples().get(0).at() : 0;
        for (Sample s : r.samples()) {
            FairShare.Share share = s.shares().get(queue);
            if (share == null) {
                continue;
            }
            double[] hf = ShareGaps.heldAndFair(share, total);
            if (hf[1] - hf[0] < POINTS) {
                continue;
            }
            below++;
            heldSum += hf[0];
            fairSum += hf[1];
            if (resource < 0) {
                resource = ShareGaps.decidingResource(share, total);
            }
            List<GangOutcome> waiting = gangs.stream().filter(g -> g.waitingAt(s.at()) && !g.member().isZero()).toList();
            Cause cause;
            String why;
            if (waiting.isEmpty()) {
                cause = Cause.NOTHING_WAITING;
                why = "";
            } else if (!share.wantsMore()) {
                cause = Cause.CAPABILITY;
                GangOutcome first = waiting.stream().min(Comparator.comparingLong(GangOutcome::createdAt)).orElseThrow();
                why = "at " + Fmt.clock(s.at()) + " it held " + amounts(share.held(), first.need()) + " of a capability of "
                        + (capability == null ? "unlimited" : amounts(capability, first.need())) + ", and its oldest waiting gang " + first.key()
                        + " needed " + Math.max(1, first.minMember()) + " × (" + amounts(first.member(), first.member()) + ") = "
                        + amounts(first.need(), first.need());
            } else if (waiting.stream().allMatch(g -> g.createdAt() > s.at() - SETTLING)) {
                cause = Cause.ARRIVING;
                why = "";
            } else {
                GangOutcome smallest = waiting.stream().filter(g -> g.createdAt() <= s.at() - SETTLING).min(Comparator.comparingDouble(g -> dominant(g.need(), total))).orElseThrow();
                Resources free = s.usage().allocatable().minus(s.usage().used()).nonNegative();
                if (!smallest.need().fitsIn(free)) {
                    cause = Cause.CLUSTER_FULL;
                    why = "at " + Fmt.clock(s.at()) + " its smallest waiting gang " + smallest.key() + " needed " + amounts(smallest.need(), smallest.need())
                            + ", the cluster had " + amounts(free, smallest.need()) + " free" + borrowers(s, queue, total);
                } else {
                    cause = Cause.SHAPE;
                    why = "at " + Fmt.clock(s.at()) + " " + amounts(free, smallest.need()) + " was free in all, and " + smallest.key() + " needed "
                            + Math.max(1, smallest.minMember()) + " pods of (" + amounts(smallest.member(), smallest.member()) + "), each on a node "
                            + "with that much free" + nodesThatFit(r, smallest.member());
                }
            }
            counts.merge(cause, 1, Integer::sum);
            example.putIfAbsent(cause, why);
        }
        if (below == 0) {
            return null;
        }
        StringBuilder sb = new StringBuilder();
        String of = resource < 0 ? "the cluster" : "the cluster's " + Fmt.shortName(ResourceNames.nameOf(resource));
        sb.append("Why ").append(queue).append(" sat below its fair share: ").append(POINTS).append(" points or more below in ").append(below)
                .append(" of ").append(r.samples().size()).append(" samples");
        if (step > 0) {
            sb.append(" (about ").append(Fmt.sim(below * step)).append(" simulated)");
        }
        sb.append(", holding ").append(Math.round(heldSum / below)).append("% of ").append(of).append(" on average against a fair share of ")
                .append(Math.round(fairSum / below)).append("%");
        if (capability != null && resource >= 0 && capability.get(resource) > 0) {
            sb.append(" (its capability allows ").append(Math.round(100.0 * capability.get(resource) / total.get(resource))).append("%)");
        }
        sb.append('\n');
        counts.entrySet().stream().sorted(Map.Entry.<Cause, Integer>comparingByValue().reversed()).forEach(c -> {
            sb.append("  ").append(c.getValue()).append(c.getValue() == 1 ? " sample: " : " samples: ").append(describe(c.getKey(), r));
            String ex = example.get(c.getKey());
            if (!ex.isEmpty()) {
                sb.append("; e.g. ").append(ex);
            }
            sb.append('\n');
        });
        return new Explanation(queue, below, Map.copyOf(counts), sb.toString().stripTrailing());
    }

    private static String describe(Cause c, Run r) {
        return switch (c) {
            case NOTHING_WAITING -> "none of its gangs was waiting (its share is room it did not ask for yet)";
            case CAPABILITY -> "its capability (with the quota kept for its gang next in line) allowed none of its waiting gangs beside what it held";
            case ARRIVING -> "its waiting gangs had arrived within the last minute and were being placed";
            case CLUSTER_FULL -> "its smallest waiting gang needed more than the cluster had free; other queues held that room"
                    + (r.reclaim() ? " and reclaim could not take enough of it back (it takes only what a queue holds beyond its fair share, "
                            + "from gangs that ran at least " + Fmt.sim(r.victimMinRuntime().toNanos()) + ")"
                            : " and reclaim is off in this scenario (what they borrowed comes back as their pods finish)");
            case SHAPE -> "the cluster as a whole had room for its smallest waiting gang, but not node by node where its pods fit, "
                    + "or that room was set aside for the gang next in line";
        };
    }

    /** ", while batch (52% against 40%) and production (…) held more than their fair share", or "". */
    private static String borrowers(Sample s, String queue, Resources total) {
        List<String> over = new ArrayList<>();
        new java.util.TreeMap<>(s.shares()).forEach((q, share) -> {
            double[] hf = ShareGaps.heldAndFair(share, total);
            if (!q.equals(queue) && hf[0] > hf[1]) {
                over.add(q + " (" + Math.round(hf[0]) + "% against " + Math.round(hf[1]) + "%)");
            }
        });
        return over.isEmpty() ? "" : ", while " + String.join(" and ", over) + " held more than their fair share";
    }

    /** "; 20 of 200 nodes have room for one such pod when empty", from the scenario's node groups. */
    private static String nodesThatFit(Run r, Resources member) {
        int fit = 0;
        int all = 0;
        for (NodeGroup g : r.nodes()) {
            all += g.count();
            if (member.fitsIn(g.allocatable())) {
                fit += g.count();
            }
        }
        return fit == all ? "; any node can hold one when empty"
                : "; only " + fit + " of " + all + " nodes can hold one at all";
    }

    /** The largest fraction of {@code total} that {@code amount} is of any resource. */
    private static double dominant(Resources amount, Resources total) {
        double max = 0;
        for (int i = 0; i < Math.min(amount.width(), total.width()); i++) {
            if (i != ResourceNames.PODS_INDEX && total.get(i) > 0) {
                max = Math.max(max, (double) amount.get(i) / total.get(i));
            }
        }
        return max;
    }

    /** {@code amount} over the resources {@code of} names (cpu, memory, GPUs), as people read them. */
    private static String amounts(Resources amount, Resources of) {
        List<String> names = new ArrayList<>();
        for (String n : Fmt.SHOWN) {
            if (of.get(n) > 0) {
                names.add(n);
            }
        }
        return Fmt.resources(amount, names.isEmpty() ? List.of(ResourceNames.CPU) : names);
    }
}
