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
    /** Size classes by minMember: the upper bound of each class. */
    private static final int[] CLASSES = {8, 32, 128, Integer.MAX_VALUE};
    /** The window over which share and fair share are compared. */
    static final long WINDOW_NANOS = 5L * 60 * 1_000_000_000L;

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
        return !s.shares().isEmpty() && s.shares().values().stream().allMatch(FairShare.Share::wantsMore);
    }

    private static void shares(StringBuilder sb, RunResult r) {
        List<Sample> all = r.samples().stream().filter(s -> !s.shares().isEmpty()).toList();
        if (all.isEmpty()) {
            return;
        }
        Resources total = r.allocatable();
        TreeSet<String> queues = new TreeSet<>();
        all.forEach(s -> queues.addAll(s.shares().keySet()));
        long counted = all.stream().filter(FairnessReport::allWantMore).count();
        sb.append("\nQueue share of the cluster while every queue had waiting work its capability allows (dominant resource; ")
                .append(counted).append(" of ").append(all.size()).append(" samples)\n");
        sb.append("  queue        held mean   fair share mean   borrowed (samples)   worst 5-min gap held - fair\n");
        for (String q : queues) {
            double held = 0;
            double fair = 0;
            int borrowing = 0;
            List<double[]> series = new ArrayList<>();
            for (int i = 0; i < all.size(); i++) {
                Sample s = all.get(i);
                FairShare.Share share = s.shares().get(q);
                if (share == null || !allWantMore(s)) {
                    continue;
                }
                double h = FairShare.Share.percentOf(share.held(), total);
                double f = FairShare.Share.percentOf(share.fairShare(), total);
                held += h;
                fair += f;
                if (!share.borrowed().isZero()) {
                    borrowing++;
                }
                series.add(new double[] {s.at(), h, f, i});
            }
            int n = series.size();
            sb.append(String.format("  %-12s %8.0f%%   %14.0f%%   %18d   %s%n", q, held / Math.max(1, n), fair / Math.max(1, n), borrowing,
                    worstWindowGap(series)));
        }
        timeline(sb, r, queues);
    }

    /** Each queue's held / fair share (percent of the cluster) every two simulated minutes, over all samples. */
    private static void timeline(StringBuilder sb, RunResult r, TreeSet<String> queues) {
        List<Sample> all = r.samples().stream().filter(s -> !s.shares().isEmpty()).toList();
        if (all.isEmpty()) {
            return;
        }
        long step = 2L * 60 * 1_000_000_000L;
        sb.append("Queue held / fair share over time (percent of the cluster, every 2 simulated minutes)\n");
        for (String q : queues) {
            StringBuilder line = new StringBuilder(String.format("  %-12s", q));
            long next = 0;
            for (Sample s : all) {
                if (s.at() < next) {
                    continue;
                }
                next = s.at() - s.at() % step + step;
                FairShare.Share share = s.shares().get(q);
                line.append(String.format(" %s %d/%d", Fmt.clock(s.at()), share == null ? 0 : FairShare.Share.percentOf(share.held(), r.allocatable()),
                        share == null ? 0 : FairShare.Share.percentOf(share.fairShare(), r.allocatable())));
            }
            sb.append(line).append('\n');
        }
    }

    /**
     * The largest |mean held − mean fair| (percentage points) over any window of WINDOW_NANOS of consecutive samples
     * (entries {@code at, held, fair, index among all samples}; a window does not span samples left out), or "-" when
     * no such window exists.
     */
    static String worstWindowGap(List<double[]> series) {
        double worst = -1;
        for (int i = 0; i < series.size(); i++) {
            double held = 0;
            double fair = 0;
            int n = 0;
            for (int j = i; j < series.size() && series.get(j)[0] - series.get(i)[0] <= WINDOW_NANOS
                    && series.get(j)[3] - series.get(i)[3] == j - i; j++) {
                held += series.get(j)[1];
                fair += series.get(j)[2];
                n++;
            }
            if (n > 1 && series.get(i + n - 1)[0] - series.get(i)[0] >= WINDOW_NANOS * 0.9) {
                worst = Math.max(worst, Math.abs(held - fair) / n);
            }
        }
        return worst < 0 ? "-" : String.format("%.0f points", worst);
    }
}
