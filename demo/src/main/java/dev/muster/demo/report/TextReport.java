package dev.muster.demo.report;

import dev.muster.core.model.QueueSpec;
import dev.muster.core.resources.Resources;
import dev.muster.demo.cluster.QueueObject;
import dev.muster.demo.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The end-of-run table printed to stdout. Stateless. */
public final class TextReport {
    /** "volcano 40/42, kubernetes 10/10, scheduler-plugins 5/6" (ran / gangs). */
    static String byApi(RunResult r) {
        List<String> parts = new java.util.ArrayList<>();
        r.gangsByApi().forEach((api, n) -> parts.add(api.label() + " " + n[1] + "/" + n[0]));
        return parts.isEmpty() ? "no gangs" : String.join(", ", parts) + " (ran / gangs)";
    }

    private static final int LABEL = 40;

    private TextReport() {}

    public static String render(RunResult r) {
        StringBuilder sb = new StringBuilder();
        Scenario s = r.scenario();
        sb.append("Muster demo: scenario \"").append(s.name()).append("\" (seed ").append(s.seed()).append("), ").append(r.nodeCount())
                .append(" nodes (").append(Fmt.resources(r.allocatable(), Fmt.SHOWN)).append("), ").append(s.queues().size())
                .append(" queues\n");
        sb.append("Ran ").append(Fmt.duration(r.realTime())).append(" real = ").append(Fmt.sim(r.simEnd())).append(" simulated at ")
                .append(trim(s.settings().speed())).append("x; ").append(r.endReason()).append('\n');
        SpeedCheck.warning(r).ifPresent(w -> sb.append(w).append('\n'));
        sb.append('\n');

        long[] waits = r.gangWaits();
        row(sb, "Gangs", Long.toString(r.gangs().size()));
        row(sb, "  started whole", Long.toString(r.gangs(GangOutcome.Kind.WHOLE)));
        row(sb, "  ran, by gang API", byApi(r));
        row(sb, "  started partially (must be 0)", Long.toString(r.gangs(GangOutcome.Kind.PARTIAL)));
        row(sb, "  never started", r.gangs(GangOutcome.Kind.NEVER_STARTED) + neverStartedWhy(r));
        row(sb, "  timed out (reservations expired)", r.stream().expiredEvents() + " (" + r.stream().expiredGangs() + " gangs"
                + (r.stream().snapshots() > 0 ? "; the stream resynced " + r.stream().snapshots() + "x, counts may be low" : "") + ")");
        row(sb, "  had to wait, first reason", waitReasons(r));
        row(sb, "  wait p50 / p90 / p99 / max (sim)", Fmt.sim(Percentiles.of(waits, 50)) + " / " + Fmt.sim(Percentiles.of(waits, 90)) + " / "
                + Fmt.sim(Percentiles.of(waits, 99)) + " / " + Fmt.sim(Percentiles.of(waits, 100)));
        List<String> longest = r.longestWaits(3).stream().map(g -> g.key() + " (" + g.minMember() + " pods, " + g.queue() + ") "
                + Fmt.sim(g.waitNanos())).toList();
        if (!longest.isEmpty()) {
            row(sb, "  waited longest", String.join("; ", longest));
        }
        row(sb, "  barrier: 1st to minMember-th bind", "max " + Fmt.millis(r.maxBindSpreadRealNanos()) + " (real)");
        if (r.incompleteGangs() > 0) {
            row(sb, "  started, extra members never bound", Long.toString(r.incompleteGangs()));
        }
        long[] single = r.singlePodWaits();
        row(sb, "Single pods bound", single.length + ", wait p50 " + Fmt.sim(Percentiles.of(single, 50)) + ", p99 "
                + Fmt.sim(Percentiles.of(single, 99)) + " (sim)");
        if (single.length > 0 && r.driver().singleFirstReasons().isEmpty()) {
            row(sb, "  had to wait, first reason", "none refused (their wait is kube-scheduler's queue)");
        }
        r.driver().singleFirstReasons().entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(4)
                .forEach(e -> row(sb, "  had to wait, first reason", e.getValue() + "x " + e.getKey()));
        Map<String, Integer> pods = r.podsAtEnd();
        row(sb, "Pods at the end", pods.getOrDefault("succeeded", 0) + " succeeded, " + pods.getOrDefault("failed", 0) + " failed, "
                + pods.getOrDefault("pending", 0) + " pending, " + (pods.getOrDefault("bound", 0) + pods.getOrDefault("running", 0))
                + " running (of " + r.podsPlanned() + ")");
        List<String> util = new ArrayList<>();
        for (String res : Fmt.SHOWN) {
            if (r.allocatable().get(res) > 0) {
                util.add(Fmt.shortName(res) + " " + Fmt.percent(r.meanUtilisation(res)) + " (peak " + Fmt.percent(r.peakUtilisation(res)) + ")");
            }
        }
        row(sb, "Utilisation while busy, mean", String.join(", ", util));
        row(sb, "Keeping up with the speed-up", SpeedCheck.row(r));
        TakingBack.lines(r).forEach(l -> sb.append(l).append('\n'));
        FairnessReport.render(sb, r);
        sb.append('\n');

        queueTable(sb, r);
        sb.append('\n');
        List<String> exceeded = r.capabilityExceeded();
        row(sb, "Capability exceeded", exceeded.isEmpty() ? "never (" + r.samples().size() + " samples, bound pods and written status)"
                : exceeded.size() + " samples, first: " + exceeded.getFirst());
        long[] cycles = r.driver().cycleNanos();
        row(sb, "kube-scheduler stand-in", r.driver().cycles() + " cycles (filter+prioritize over HTTP), p50 "
                + Fmt.millis(Percentiles.of(cycles, 50)) + ", p99 " + Fmt.millis(Percentiles.of(cycles, 99)));
        row(sb, "", r.driver().binds() + " binds over HTTP, " + r.driver().unschedulable() + " unschedulable answers, "
                + r.driver().noNodeFits() + " times no node fit (its own filter)");
        row(sb, "", r.driver().bindErrors() + " bind errors, each retried" + (r.driver().bindErrorSamples().isEmpty() ? ""
                : ": " + String.join("; ", r.driver().bindErrorSamples().entrySet().stream().limit(3)
                        .map(e -> e.getValue() + "x " + e.getKey()).toList())));
        row(sb, "Controller status writes", r.cluster().queueStatusWrites() + " Queue + " + r.cluster().podGroupStatusWrites()
                + " PodGroup (one writer, merge patches)");
        row(sb, "Allocation stream", r.stream().events() + " events over gRPC");
        sb.append('\n');
        List<String> violations = r.violations();
        if (violations.isEmpty()) {
            row(sb, "Invariants", "all hold");
        } else {
            row(sb, "Invariants", "FAILED");
            for (String v : violations) {
                sb.append("  - ").append(v).append('\n');
            }
        }
        return sb.toString();
    }

    private static void queueTable(StringBuilder sb, RunResult r) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"Queue", "weight", "capability", "peak held by bound pods", "status writes"});
        for (QueueObject q : r.queues()) {
            QueueSpec spec = q.spec();
            List<String> shown = r.shownResources(q.name());
            Resources peak = r.peakHeld(q.name());
            rows.add(new String[] {q.name(), Integer.toString(spec.weight()),
                spec.capability() == null ? "unlimited" : Fmt.resources(spec.capability(), shown),
                Fmt.resources(peak, shown) + (spec.capability() == null ? "" : " (" + peakPercent(peak, spec.capability(), shown) + " of cap)"),
                Long.toString(q.statusWrites())});
        }
        table(sb, rows, new boolean[] {false, true, false, false, true});
        sb.append('\n');
        sb.append("Queue status.allocated written by the controller vs the sum of the queue's bound pods' requests\n");
        for (Checkpoint c : r.checkpoints()) {
            sb.append("  ").append(c.label()).append(" (sim ").append(Fmt.clock(c.at())).append(c.matched()
                    ? ", equal " + Fmt.duration(c.converged()) + " after scheduling went quiet)" : ", still different after " + Fmt.duration(c.converged()) + ")")
                    .append('\n');
            List<String[]> cr = new ArrayList<>();
            for (QueueObject q : r.queues()) {
                List<String> shown = r.shownResources(q.name());
                Resources written = c.written().get(q.name());
                Resources truth = c.truth().getOrDefault(q.name(), Resources.ZERO);
                boolean same = written != null ? written.equals(truth) : truth.isZero();
                cr.add(new String[] {"    " + q.name(), "written " + (written == null ? "nothing" : Fmt.resources(written, shown)),
                    (same ? "=" : "!=") + " bound " + Fmt.resources(truth, shown), same ? "ok" : "MISMATCH"});
            }
            table(sb, cr, new boolean[] {false, false, false, false});
        }
    }

    private static void table(StringBuilder sb, List<String[]> rows, boolean[] rightAligned) {
        int[] widths = new int[rows.getFirst().length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(rightAligned[i] ? Fmt.padLeft(row[i], widths[i]) : Fmt.padRight(row[i], widths[i]));
                if (i < row.length - 1) {
                    line.append("  ");
                }
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
    }

    private static String peakPercent(Resources peak, Resources cap, List<String> shown) {
        double max = 0;
        for (String res : shown) {
            if (cap.get(res) > 0) {
                max = Math.max(max, peak.get(res) / (double) cap.get(res));
            }
        }
        return Fmt.percent(max);
    }

    private static String neverStartedWhy(RunResult r) {
        long never = r.gangs(GangOutcome.Kind.NEVER_STARTED);
        if (never == 0) {
            return "";
        }
        return " (still pending when the run ended)";
    }

    private static String waitReasons(RunResult r) {
        Map<ReasonCategory, Integer> reasons = r.stream().firstWaitReason();
        if (reasons.isEmpty()) {
            return "none";
        }
        List<String> parts = new ArrayList<>();
        for (ReasonCategory c : ReasonCategory.values()) {
            Integer n = reasons.get(c);
            if (n != null) {
                parts.add(n + " " + c.label());
            }
        }
        return String.join(", ", parts);
    }

    private static void row(StringBuilder sb, String label, String value) {
        sb.append(Fmt.padRight(label, LABEL)).append(value).append('\n');
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.2f", d);
    }
}
