package dev.muster.demo.report;

import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The fairness part of the text report: per queue, the share of the cluster it held against its fair share (as the
 * extender computed them), and per queue and gang size class, how long gangs waited. Shares are of the queue's
 * dominant resource, in percent of the cluster's allocatable.
 */
final class FairnessReport {
    /**
     * The fewest samples a held-against-fair comparison rests on (5 simulated minutes at the default 15 s a sample):
     * with fewer, the table says so instead of giving means.
     */
    static final int MIN_SAMPLES = 20;

    /** Size classes by minMember: the upper bound of each class. */
    private static final int[] CLASSES = {8, 32, 128, Integer.MAX_VALUE};

    private FairnessReport() {}

    static void render(StringBuilder sb, RunResult r) {
        waitsBySize(sb, r);
        shares(sb, r);
    }

    private static String sizeClass(int minMember) {
        int lower = 1;
        for (int upper : CLASSES) {
            if (minMember <= upper) {
                return upper == Integer.MAX_VALUE ? lower + "+" : lower + "-" + upper;
            }
            lower = upper + 1;
        }
        return "?";
    }

    private static void waitsBySize(StringBuilder sb, RunResult r) {
        Map<String, Map<String, List<Long>>> waits = new TreeMap<>();
        for (GangOutcome g : r.gangs()) {
            if (g.waitNanos() >= 0) {
                waits.computeIfAbsent(g.queue(), q -> new TreeMap<>((a, b) -> Integer.compare(lowerOf(a), lowerOf(b))))
                        .computeIfAbsent(sizeClass(g.minMember()), c -> new ArrayList<>()).add(g.waitNanos());
            }
        }
        sb.append("\nGang waits by queue and size (minMember)   gangs   p50 / p99 / max (sim)\n");
        waits.forEach((queue, byClass) -> byClass.forEach((cls, list) -> {
            long[] w = list.stream().mapToLong(Long::longValue).toArray();
            sb.append(String.format("  %-12s %-10s                    %5d   %s / %s / %s%n", queue, cls, w.length,
                    Fmt.sim(Percentiles.of(w, 50)), Fmt.sim(Percentiles.of(w, 99)), Fmt.sim(Percentiles.of(w, 100))));
        }));
    }

    private static int lowerOf(String cls) {
        return Integer.parseInt(cls.replace("+", "").split("-")[0]);
    }

    /**
     * Whether every queue wants more than it holds at this sample — each has waiting work its capability allows (the
     * issue's condition for comparing held with fair share).
     */
    static boolean allWantMore(Sample s) {
        return ShareGaps.allWantMore(s.shares());
    }

    private static void shares(StringBuilder sb, RunResult r) {
        List<ShareGaps.At> all = r.samples().stream().filter(s -> !s.shares().isEmpty()).map(s -> new ShareGaps.At(s.at(), s.shares())).toList();
        if (all.isEmpty()) {
            return;
        }
        TreeSet<String> queues = sharesTable(sb, all, r.allocatable());
        timeline(sb, r, queues);
        for (ShareShortfall.Explanation e : ShareShortfall.of(r)) {
            sb.append(e.text()).append('\n');
        }
    }

    /**
     * The table of held against fair share: over the samples in which every queue wanted more when there are at least
     * {@link #MIN_SAMPLES} of them, else each queue over its own such samples; a queue with fewer than
     * {@link #MIN_SAMPLES} gets no means, only a line saying so. Returns the queues shown.
     */
    static TreeSet<String> sharesTable(StringBuilder sb, List<ShareGaps.At> all, Resources total) {
        long counted = ShareGaps.counted(all);
        Map<String, ShareGaps.QueueGap> gaps;
        if (counted >= MIN_SAMPLES) {
            sb.append("\nQueue share of the cluster while every queue had waiting work its capability allows (resource that decides its place in line; ")
                    .append(counted).append(" of ").append(all.size()).append(" samples)\n");
            gaps = ShareGaps.of(all, total);
        } else {
            // the queues seldom or never all wanted more at once (one sat at its capability, say): compare each while it wanted more
            sb.append("\nQueue share of the cluster while the queue had waiting work its capability allows (resource that decides its place in line; ")
                    .append(counted == 0 ? "no sample of " + all.size() + " in which every queue did"
                            : "every queue did in only " + counted + " of " + all.size() + " samples, fewer than the " + MIN_SAMPLES
                            + " a comparison of all queues needs").append(")\n");
            gaps = ShareGaps.ofEachWanting(all, total);
        }
        sb.append("  queue        samples   held mean   fair share mean   borrowed (samples)   worst 5-min gap held - fair\n");
        TreeSet<String> queues = new TreeSet<>();
        gaps.forEach((q, g) -> {
            queues.add(q);
            sb.append(g.samples() < MIN_SAMPLES ? String.format("  %-12s %7d   too few samples to compare (fewer than %d)%n", q, g.samples(), MIN_SAMPLES)
                    : String.format("  %-12s %7d   %8.0f%%   %14.0f%%   %18d   %s%n", q, g.samples(), g.heldMean(), g.fairMean(), g.borrowing(),
                            ShareGaps.format(g.worstGap())));
        });
        return queues;
    }

    /** Each queue's held / fair share (percent of the cluster) every two simulated minutes, over all samples. */
    private static void timeline(StringBuilder sb, RunResult r, TreeSet<String> queues) {
        List<Sample> all = r.samples().stream().filter(s -> !s.shares().isEmpty()).toList();
        if (all.isEmpty()) {
            return;
        }
        long step = 2L * 60 * 1_000_000_000L;
        sb.append("Queue held / fair share over time (percent of the cluster of the resource that decides its place in line, every 2 simulated minutes)\n");
        for (String q : queues) {
            StringBuilder line = new StringBuilder(String.format("  %-12s", q));
            long next = 0;
            for (Sample s : all) {
                if (s.at() < next) {
                    continue;
                }
                next = s.at() - s.at() % step + step;
                FairShare.Share share = s.shares().get(q);
                double[] hf = share == null ? new double[2] : ShareGaps.heldAndFair(share, r.allocatable());
                line.append(String.format(" %s %.0f/%.0f", Fmt.clock(s.at()), hf[0], hf[1]));
            }
            sb.append(line).append('\n');
        }
    }

    /** The worst 5-minute gap of {@code series} ({@link ShareGaps#worstGap}), formatted. */
    static String worstWindowGap(List<double[]> series) {
        return ShareGaps.format(ShareGaps.worstGap(series));
    }
}
