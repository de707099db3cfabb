package dev.muster.demo.report;

import dev.muster.core.queue.FairShare;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The share goal, measured: per queue, what it held against its fair share (dominant resource, in percent of
 * the cluster) over the samples in which every queue had waiting work its capability allows, and the worst gap between
 * the two over any 5 simulated minutes of consecutive such samples. Shared by the demo's report and the fair-share
 * simulation. Pure.
 */
public final class ShareGaps {
    /** The window over which share and fair share are compared. */
    public static final long WINDOW_NANOS = 5L * 60 * 1_000_000_000L;

    /** One sample: simulated time and each queue's share. */
    public record At(long atNanos, Map<String, FairShare.Share> shares) {}

    /**
     * One queue over the counted samples.
     *
     * @param worstGap the largest |mean held − mean fair| in percentage points over any 5-minute window, or -1 when no
     *                 window of counted samples lasts 5 minutes
     */
    public record QueueGap(String queue, int samples, double heldMean, double fairMean, int borrowing, double worstGap) {}

    private ShareGaps() {}

    /**
     * What the queue holds and its fair share, in percent of the cluster, of one resource: the one that decides its
     * place in line (the largest held ÷ fair share, {@link FairShare#ratio}), or while it holds nothing, its largest
     * fair share. Held and fair share are compared on the same resource: the fair share is water-filled per resource,
     * so a queue bound by cpu may have a larger fair share of memory than it can use (what another queue does not ask
     * for), and its largest fair share need not be of the resource it holds most of.
     */
    public static double[] heldAndFair(FairShare.Share share, Resources total) {
        int best = decidingResource(share, total);
        if (best < 0) {
            return new double[] {0, 0};
        }
        return new double[] {Math.round(100.0 * share.held().get(best) / total.get(best)), Math.round(100.0 * share.fairShare().get(best) / total.get(best))};
    }

    /** The index of the resource {@link #heldAndFair} compares on, or -1 when the queue neither holds nor has a share of any. */
    public static int decidingResource(FairShare.Share share, Resources total) {
        int best = -1;
        double bestRatio = -1;
        for (int r = 0; r < Math.min(share.held().width(), total.width()); r++) {
            if (r == ResourceNames.PODS_INDEX || total.get(r) <= 0 || share.held().get(r) <= 0) {
                continue;
            }
            double ratio = share.fairShare().get(r) <= 0 ? Double.POSITIVE_INFINITY : (double) share.held().get(r) / share.fairShare().get(r);
            // equal ratios (a queue whose pods ask cpu and GPUs in one proportion): the resource it holds most of
            boolean tie = best >= 0 && Math.abs(ratio - bestRatio) <= 1e-3 * Math.max(1, bestRatio);
            if (tie ? (double) share.held().get(r) / total.get(r) > (double) share.held().get(best) / total.get(best) : ratio > bestRatio) {
                best = r;
                bestRatio = ratio;
            }
        }
        if (best < 0) {
            double most = 0;
            for (int r = 0; r < Math.min(share.fairShare().width(), total.width()); r++) {
                if (r != ResourceNames.PODS_INDEX && total.get(r) > 0 && (double) share.fairShare().get(r) / total.get(r) > most) {
                    best = r;
                    most = (double) share.fairShare().get(r) / total.get(r);
                }
            }
        }
        return best;
    }

    /** Whether every queue wants more than it holds at this sample (the condition). */
    public static boolean allWantMore(Map<String, FairShare.Share> shares) {
        return !shares.isEmpty() && shares.values().stream().allMatch(FairShare.Share::wantsMore);
    }

    /** How many of {@code samples} meet the condition. */
    public static long counted(List<At> samples) {
        return samples.stream().filter(s -> allWantMore(s.shares())).count();
    }

    /** Per queue (by name), over the samples (in time order) that meet the condition. */
    public static Map<String, QueueGap> of(List<At> samples, Resources total) {
        return of(samples, total, true);
    }

    /**
     * Per queue (by name), over the samples (in time order) in which that queue wanted more than it held — whatever the
     * other queues wanted; for a run in which the queues never all want more at once.
     */
    public static Map<String, QueueGap> ofEachWanting(List<At> samples, Resources total) {
        return of(samples, total, false);
    }

    private static Map<String, QueueGap> of(List<At> samples, Resources total, boolean everyQueue) {
        TreeSet<String> queues = new TreeSet<>();
        samples.forEach(s -> queues.addAll(s.shares().keySet()));
        Map<String, QueueGap> out = new TreeMap<>();
        for (String q : queues) {
            double held = 0;
            double fair = 0;
            int borrowing = 0;
            List<double[]> series = new ArrayList<>();
            for (int i = 0; i < samples.size(); i++) {
                At s = samples.get(i);
                FairShare.Share share = s.shares().get(q);
                if (share == null || !(everyQueue ? allWantMore(s.shares()) : share.wantsMore())) {
                    continue;
                }
                double[] hf = heldAndFair(share, total);
                double h = hf[0];
                double f = hf[1];
                held += h;
                fair += f;
                if (!share.borrowed().isZero()) {
                    borrowing++;
                }
                series.add(new double[] {s.atNanos(), h, f, i});
            }
            int n = series.size();
            out.put(q, new QueueGap(q, n, held / Math.max(1, n), fair / Math.max(1, n), borrowing, worstGap(series)));
        }
        return out;
    }

    /**
     * The largest |mean held − mean fair| (percentage points) over any window of {@link #WINDOW_NANOS} of consecutive
     * samples (entries {@code at, held, fair, index among all samples}; a window does not span samples left out), or -1
     * when no such window exists.
     */
    static double worstGap(List<double[]> series) {
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
        return worst;
    }

    /** "N points", or "-" when there is no 5-minute window. */
    public static String format(double worstGap) {
        return worstGap < 0 ? "-" : String.format("%.0f points", worstGap);
    }
}
