package dev.muster.core.queue;

import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Each queue's fair share of the cluster, per resource, the way Volcano's proportion plugin and YuniKorn share a
 * cluster by weight. Pure and thread-safe.
 *
 * <p>For every resource separately:
 * <ol>
 *   <li>Only {@code Open} queues have a share; a closed queue's is zero.</li>
 *   <li>{@code guarantee} is set aside for its queue first (capped by its {@code capability}), whether it asks for it or not.</li>
 *   <li>A queue whose {@code deserved} names the resource gets that (capped by capability and by what it asks for, and
 *       never below its guarantee) instead of a weighted share.</li>
 *   <li>What is left is water-filled among the other queues by {@code weight}: each gets {@code left × weight / Σweight}
 *       of the queues still wanting more, capped by what it can use (below); what a capped queue does not take is
 *       shared again among the rest, until nothing is left or nobody wants more.</li>
 * </ol>
 * <b>What a queue can use</b> of a resource is what it asks for (held + waiting), and its {@code capability} — where
 * the capability allows only part of what the queue asks on one resource, only that part of its asks on every
 * resource: a queue asking 200 GPUs and 1200 cpu with a capability of 100 GPUs can use 600 cpu (its pods need the
 * GPUs it cannot get), so the other 600 cpu are shared among the other queues.
 * A queue may hold more than its fair share (it borrowed what others left idle); {@link Share#borrowed()} says how
 * much. Borrowed capacity comes back as the borrower's pods finish, because the queue furthest below its share is
 * served first ({@link Share#ratio()}), and by reclaim ({@link dev.muster.core.preempt.Preemptions}).
 */
public final class FairShare {
    private FairShare() {}

    /**
     * One queue's input: its spec, what it holds now (bound + reserved), what it asks for in all (held + waiting), and
     * whether it wants more than it holds — it has waiting work its capability allows now.
     */
    public record Demand(QueueSpec spec, Resources held, Resources asks, boolean wantsMore) {
        /** A demand that wants more when it asks for more than it holds of some resource. */
        public Demand(QueueSpec spec, Resources held, Resources asks) {
            this(spec, held, asks, !asks.fitsIn(held));
        }
    }

    /**
     * One queue's result.
     *
     * @param fairShare what the queue should hold, per resource
     * @param held      what it holds (bound pods and reservations)
     * @param borrowed  what it holds beyond its fair share, per resource (never negative)
     * @param ratio     held ÷ fair share on its dominant resource (the largest ratio over the resources it asks for):
     *                  below 1 it is owed capacity, above 1 it borrows; 0 when it holds nothing it asks for;
     *                  {@link Double#POSITIVE_INFINITY} when it holds a resource it has no share of
     * @param wantsMore whether it has waiting work its capability allows now ({@link Demand#wantsMore()})
     */
    public record Share(String queue, Resources fairShare, Resources held, Resources borrowed, double ratio, boolean wantsMore) {
        /**
         * How a queue stands against its fair share, told on one resource — the one its {@link #ratio} is decided by
         * (the largest held ÷ fair share; with nothing held, the one its share is largest of) — with both numbers as
         * percent of the cluster's amount of that same resource: {@code "cpu (holds 41%, share 35%)"}. Empty when the
         * cluster is empty.
         */
        public static String against(Resources held, Resources fair, Resources total) {
            int best = -1;
            double bestRatio = -1;
            boolean holds = false;
            for (int r = 0; r < total.width(); r++) {
                if (r == ResourceNames.PODS_INDEX || total.get(r) <= 0) {
                    continue;
                }
                boolean h = held.get(r) > 0;
                double ratio = h ? (fair.get(r) <= 0 ? Double.POSITIVE_INFINITY : (double) held.get(r) / fair.get(r))
                        : (double) fair.get(r) / total.get(r);
                if ((h && !holds) || (h == holds && ratio > bestRatio)) {
                    best = r;
                    bestRatio = ratio;
                    holds |= h;
                }
            }
            if (best < 0) {
                return "";
            }
            return ResourceNames.nameOf(best) + " (holds " + Math.round(100.0 * held.get(best) / total.get(best)) + "%, share "
                    + Math.round(100.0 * fair.get(best) / total.get(best)) + "%)";
        }

        /** The dominant resource's share of the cluster, in percent (held or fair share, 0 when the cluster is empty). */
        public static int percentOf(Resources amount, Resources total) {
            double max = 0;
            for (int i = 0; i < Math.min(amount.width(), total.width()); i++) {
                if (i != ResourceNames.PODS_INDEX && total.get(i) > 0) {
                    max = Math.max(max, (double) amount.get(i) / total.get(i));
                }
            }
            return (int) Math.round(max * 100);
        }
    }

    /** Fair shares of {@code total} (the schedulable cluster) among {@code queues}, by queue name, in input order. */
    public static Map<String, Share> compute(Resources total, Collection<Demand> queues) {
        List<Demand> qs = new ArrayList<>(queues);
        int n = qs.size();
        int width = total.width();
        for (Demand d : qs) {
            width = Math.max(width, Math.max(d.held().width(), d.asks().width()));
        }
        long[][] fair = new long[n][width];
        long[][] usable = new long[n][];
        for (int q = 0; q < n; q++) {
            usable[q] = usable(qs.get(q), width);
        }
        for (int r = 0; r < width; r++) {
            if (r != ResourceNames.PODS_INDEX) {
                shareResource(r, total.get(r), qs, usable, fair);
            }
        }
        Map<String, Share> out = new LinkedHashMap<>();
        for (int q = 0; q < n; q++) {
            Demand d = qs.get(q);
            Resources.Builder fb = Resources.builder();
            for (int r = 0; r < width; r++) {
                fb.set(r, fair[q][r]);
            }
            Resources fs = fb.build();
            out.put(d.spec().name(), new Share(d.spec().name(), fs, d.held(), d.held().minus(fs).nonNegative(), ratio(d.held(), fs), d.wantsMore()));
        }
        return out;
    }

    /**
     * What the queue can use of each resource: what it asks for (at least what it holds), scaled down on every resource
     * by the smallest fraction of its asks that its capability allows on any one resource.
     */
    static long[] usable(Demand d, int width) {
        QueueSpec s = d.spec();
        long[] wants = new long[width];
        double fraction = 1;
        for (int r = 0; r < width; r++) {
            if (r == ResourceNames.PODS_INDEX) {
                continue;
            }
            wants[r] = Math.max(d.asks().get(r), d.held().get(r));
            if (wants[r] > 0 && named(s.capability(), r)) {
                fraction = Math.min(fraction, (double) s.capability().get(r) / wants[r]);
            }
        }
        if (fraction < 1) {
            for (int r = 0; r < width; r++) {
                wants[r] = (long) Math.ceil(wants[r] * fraction);
            }
        }
        return wants;
    }

    private static void shareResource(int r, long total, List<Demand> qs, long[][] usable, long[][] fair) {
        int n = qs.size();
        long[] cap = new long[n]; // the most queue q may get: min(capability, what it can use), or 0 when not Open
        boolean[] fixed = new boolean[n];
        long left = total;
        for (int q = 0; q < n; q++) {
            Demand d = qs.get(q);
            QueueSpec s = d.spec();
            if (s.state() != QueueState.OPEN) {
                fixed[q] = true;
                continue;
            }
            long capability = named(s.capability(), r) ? s.capability().get(r) : Long.MAX_VALUE;
            long guarantee = Math.min(named(s.guarantee(), r) ? s.guarantee().get(r) : 0, capability);
            cap[q] = Math.max(guarantee, Math.min(capability, usable[q][r]));
            fair[q][r] = guarantee;
            left -= guarantee;
            if (named(s.deserved(), r)) {
                fair[q][r] = Math.max(guarantee, Math.min(s.deserved().get(r), cap[q]));
                left -= fair[q][r] - guarantee;
                fixed[q] = true;
            }
        }
        // water-fill what is left by weight among queues that still want more
        while (left > 0) {
            long weights = 0;
            for (int q = 0; q < n; q++) {
                if (!fixed[q] && fair[q][r] < cap[q]) {
                    weights += Math.max(1, qs.get(q).spec().weight());
                }
            }
            if (weights == 0) {
                return;
            }
            long given = 0;
            for (int q = 0; q < n; q++) {
                if (fixed[q] || fair[q][r] >= cap[q]) {
                    continue;
                }
                long offer = (long) Math.floor((double) left * Math.max(1, qs.get(q).spec().weight()) / weights);
                long take = Math.min(Math.max(offer, 1), cap[q] - fair[q][r]);
                take = Math.min(take, left - given);
                fair[q][r] += take;
                given += take;
                if (given >= left) {
                    break;
                }
            }
            if (given == 0) {
                return;
            }
            left -= given;
        }
    }

    private static boolean named(Resources r, int index) {
        return r != null && r.asMap().containsKey(ResourceNames.nameOf(index));
    }

    /**
     * Held ÷ fair share on the dominant resource: the largest ratio over the resources held ({@code 0} when nothing is
     * held, {@link Double#POSITIVE_INFINITY} when a resource is held that the queue has no share of).
     */
    public static double ratio(Resources held, Resources fair) {
        double ratio = 0;
        for (int r = 0; r < held.width(); r++) {
            if (r == ResourceNames.PODS_INDEX || held.get(r) <= 0) {
                continue;
            }
            if (fair.get(r) <= 0) {
                return Double.POSITIVE_INFINITY;
            }
            ratio = Math.max(ratio, (double) held.get(r) / fair.get(r));
        }
        return ratio;
    }
}
