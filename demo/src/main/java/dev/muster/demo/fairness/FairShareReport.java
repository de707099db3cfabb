package dev.muster.demo.fairness;

import dev.muster.core.queue.FairShare;
import dev.muster.demo.report.ShareGaps;
import dev.muster.demo.scenario.Scenario;
import java.util.List;
import java.util.Map;

/** The text of {@code muster-demo fairness}: per queue, held against fair share while every queue wants more. Pure. */
public final class FairShareReport {
    private FairShareReport() {}

    public static String render(Scenario s, FairShareSimulation.Run run) {
        StringBuilder sb = new StringBuilder();
        List<ShareGaps.At> samples = samples(run);
        sb.append(String.format("Fair-share simulation \"%s\" (seed %d): %d nodes, %d queues, on the scheduling core in simulated time%n",
                s.name(), s.seed(), s.nodeCount(), s.queues().size()));
        sb.append(String.format("gangs started %d/%d, single pods %d/%d, all done after %s (simulated)%n", run.gangsStarted(), run.gangs(),
                run.podsStarted(), run.pods(), clock(run.endNanos())));
        sb.append(String.format("%nQueue share of the cluster while every queue had waiting work its capability allows (resource that decides its place in line; %d of %d samples)%n",
                ShareGaps.counted(samples), samples.size()));
        sb.append("  queue        weight   held mean   fair share mean   worst 5-min gap held - fair\n");
        Map<String, ShareGaps.QueueGap> gaps = gaps(run);
        gaps.forEach((q, g) -> sb.append(String.format("  %-12s %6d   %8.0f%%   %14.0f%%   %s%n", q, weight(s, q), g.heldMean(), g.fairMean(),
                ShareGaps.format(g.worstGap()))));
        sb.append("Queue held / fair share over time (percent of the cluster of the resource that decides its place in line, every 2 simulated minutes; * = every queue wants more)\n");
        long step = 2L * 60 * 1_000_000_000L;
        for (String q : gaps.keySet()) {
            StringBuilder line = new StringBuilder(String.format("  %-12s", q));
            long next = 0;
            for (ShareGaps.At a : samples) {
                if (a.atNanos() < next) {
                    continue;
                }
                next = a.atNanos() - a.atNanos() % step + step;
                FairShare.Share share = a.shares().get(q);
                double[] hf = share == null ? new double[2] : ShareGaps.heldAndFair(share, run.allocatable());
                line.append(String.format(" %s %.0f/%.0f%s", clock(a.atNanos()), hf[0], hf[1], ShareGaps.allWantMore(a.shares()) ? "*" : ""));
            }
            sb.append(line).append('\n');
        }
        if (!run.invariantProblems().isEmpty()) {
            sb.append("Invariants broken: ").append(run.invariantProblems()).append('\n');
        }
        return sb.toString();
    }

    /** The run's samples, as the share goal measures them. */
    public static List<ShareGaps.At> samples(FairShareSimulation.Run run) {
        return run.samples().stream().filter(x -> !x.shares().isEmpty()).map(x -> new ShareGaps.At(x.atNanos(), x.shares())).toList();
    }

    /** Per queue, the share goal over the run. */
    public static Map<String, ShareGaps.QueueGap> gaps(FairShareSimulation.Run run) {
        return ShareGaps.of(samples(run), run.allocatable());
    }

    private static int weight(Scenario s, String queue) {
        return s.queues().stream().filter(q -> q.name().equals(queue)).mapToInt(q -> q.weight()).findFirst().orElse(0);
    }

    private static String clock(long nanos) {
        long sec = nanos / 1_000_000_000L;
        return String.format("%d:%02d:%02d", sec / 3600, sec / 60 % 60, sec % 60);
    }
}
