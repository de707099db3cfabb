package dev.muster.demo.report;

import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.demo.cluster.QueueObject;
import dev.muster.demo.scenario.PodShape;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The report as one self-contained HTML page: the text table, and inline SVG charts of utilisation, per-queue
 * allocation (the status the controller wrote, the bound pods, the capability), gangs running and waiting, and
 * the distribution of gang wait times. No scripts, nothing loaded from the network. Stateless.
 */
public final class HtmlReport {
    private static final String[] PALETTE = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};
    private static final long[] WAIT_BUCKETS_S = {10, 30, 60, 120, 300, 600, 1200};

    private HtmlReport() {}

    public static String render(RunResult r) {
        StringBuilder sb = new StringBuilder(64 * 1024);
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Muster demo: ").append(Svg.esc(r.scenario().name()))
                .append("</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1000px;color:#222}\n")
                .append("pre{background:#f6f8fa;padding:1em;white-space:pre-wrap;font-size:12px;line-height:1.35}\n")
                .append("h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em}.note{color:#555;font-size:.9em}\n")
                .append("svg{display:block;margin:.5em 0 1.2em}.title{font-size:13px;font-weight:600}.tick{font-size:10px;fill:#555}\n")
                .append(".legend{font-size:11px}.axis{stroke:#888}.grid{stroke:#eee}\n")
                .append(".ok{color:#2a7d2a;font-weight:600}.bad{color:#c62828;font-weight:600}\n")
                .append("</style></head><body>\n");
        List<String> violations = r.violations();
        sb.append("<h1>Muster demo: scenario &ldquo;").append(Svg.esc(r.scenario().name())).append("&rdquo; ")
                .append(violations.isEmpty() ? "<span class=\"ok\">all invariants hold</span>" : "<span class=\"bad\">invariants failed</span>")
                .append("</h1>\n");
        sb.append("<p class=\"note\">The real Muster extender (HTTP verbs, gang reservations and the bind barrier) and the real controller ")
                .append("(allocation stream over gRPC, status folding, one writer) ran against an embedded in-memory cluster, driven by a ")
                .append("kube-scheduler stand-in. Pod arrivals and run times are simulated time, compressed ")
                .append(Svg.esc(trim(r.scenario().settings().speed()))).append("&times;; scheduling ran in real time.</p>\n");
        sb.append("<pre>").append(Svg.esc(TextReport.render(r))).append("</pre>\n");

        double xmax = r.samples().isEmpty() ? 1 : r.samples().getLast().at() / 1e9;
        sb.append("<h2>Cluster utilisation</h2>\n<p class=\"note\">One chart per resource: requests of bound pods over the cluster's ")
                .append("allocatable of that resource.</p>\n");
        int c = 0;
        for (String res : Fmt.SHOWN) {
            if (r.allocatable().get(res) > 0) {
                sb.append(Svg.lineChart(label(res) + ": requests of bound pods / allocatable", "%", 100, xmax,
                        List.of(series(r, Fmt.shortName(res), PALETTE[c++], false, 1, s -> 100 * Fmt.fraction(s.usage().used(), s.usage().allocatable(), res)))));
            }
        }
        takingBack(sb, r);

        sb.append("<h2>Queue allocation</h2>\n<p class=\"note\">Solid: <code>status.allocated</code> as the controller wrote it into the ")
                .append("cluster. Faint: the sum of the queue's bound pods' requests (the truth). Dashed: the queue's capability.</p>\n");
        for (String res : queueResources(r)) {
            List<Svg.Series> lines = new ArrayList<>();
            double max = 0;
            int q = 0;
            for (QueueObject queue : r.queues()) {
                String color = PALETTE[q++ % PALETTE.length];
                String name = queue.name();
                lines.add(series(r, name + " written", color, false, 1, s -> unit(res, s.usage().statusByQueue().getOrDefault(name, Resources.ZERO))));
                lines.add(series(r, "", color, false, 0.3, s -> unit(res, s.usage().usedByQueue().getOrDefault(name, Resources.ZERO))));
                Resources cap = queue.spec().capability();
                if (cap != null && cap.get(res) > 0) {
                    double capValue = unit(res, cap);
                    lines.add(series(r, "", color, true, 0.8, s -> capValue));
                    max = Math.max(max, capValue);
                }
                max = Math.max(max, unit(res, r.peakHeld(name)));
            }
            sb.append(Svg.lineChart("Allocated " + label(res) + " per queue", "", max * 1.05, xmax, lines));
        }

        fairShare(sb, r, xmax);

        sb.append("<h2>Gangs</h2>\n");
        List<Svg.Series> gangs = List.of(
                series(r, "running (a member holds resources)", PALETTE[2], false, 1, s -> s.usage().gangsRunning()),
                series(r, "waiting (members pending, none placed)", PALETTE[1], false, 1, s -> s.usage().gangsWaiting()));
        double gmax = r.samples().stream().mapToDouble(s -> Math.max(s.usage().gangsRunning(), s.usage().gangsWaiting())).max().orElse(1);
        sb.append(Svg.lineChart("Gangs over time", "", gmax, xmax, gangs));
        long[] waits = r.gangWaits();
        List<String> labels = new ArrayList<>();
        long[] counts = new long[WAIT_BUCKETS_S.length + 1];
        long lo = 0;
        for (long b : WAIT_BUCKETS_S) {
            labels.add(lo == 0 ? "< " + Fmt.sim(b * 1_000_000_000L) : Fmt.sim(lo * 1_000_000_000L) + "–" + Fmt.sim(b * 1_000_000_000L));
            lo = b;
        }
        labels.add("≥ " + Fmt.sim(lo * 1_000_000_000L));
        for (long w : waits) {
            int i = 0;
            while (i < WAIT_BUCKETS_S.length && w >= WAIT_BUCKETS_S[i] * 1_000_000_000L) {
                i++;
            }
            counts[i]++;
        }
        sb.append(Svg.barChart("Gang wait: creation to start (simulated), " + waits.length + " gangs", "", labels, counts, PALETTE[0]));

        if (!violations.isEmpty()) {
            sb.append("<h2 class=\"bad\">Failed invariants</h2>\n<ul>\n");
            for (String v : violations) {
                sb.append("<li>").append(Svg.esc(v)).append("</li>\n");
            }
            sb.append("</ul>\n");
        }
        return sb.append("</body></html>\n").toString();
    }

    /**
     * Each queue's share of the cluster against its fair share over time (percent of the resource that decides its place
     * in line, as the extender computed them), and why a queue sat below its share.
     */
    private static void fairShare(StringBuilder sb, RunResult r, double xmax) {
        if (r.samples().stream().allMatch(s -> s.shares().isEmpty())) {
            return;
        }
        sb.append("<h2>Share against fair share</h2>\n<p class=\"note\">Solid: what the queue held (bound pods and reservations). ")
                .append("Dashed: its fair share by weight, capped by its capability and by what it asked for. Both in percent of the cluster, ")
                .append("one chart per resource; the table above compares each queue on the resource that decides its place in line (the one ")
                .append("it holds most of relative to its share). A queue ")
                .append("below its share is served first, and with reclaim on takes back room that queues above their share borrowed.</p>\n");
        for (String res : Fmt.SHOWN) {
            if (r.allocatable().get(res) <= 0) {
                continue;
            }
            List<Svg.Series> lines = new ArrayList<>();
            int q = 0;
            for (QueueObject queue : r.queues()) {
                String color = PALETTE[q++ % PALETTE.length];
                String name = queue.name();
                boolean any = r.samples().stream().map(s -> s.shares().get(name))
                        .anyMatch(sh -> sh != null && (sh.held().get(res) > 0 || sh.fairShare().get(res) > 0));
                if (any) {
                    lines.add(series(r, name, color, false, 1, s -> heldAndFairOf(r, s, name, res)[0]));
                    lines.add(series(r, "", color, true, 0.8, s -> heldAndFairOf(r, s, name, res)[1]));
                }
            }
            if (!lines.isEmpty()) {
                sb.append(Svg.lineChart("Share of the cluster's " + label(res) + " per queue: held (solid) and fair share (dashed)", "%", 100, xmax, lines));
            }
        }
        List<ShareShortfall.Explanation> why = ShareShortfall.of(r);
        if (why.isEmpty()) {
            sb.append("<p>No queue sat ").append(ShareShortfall.POINTS).append(" points or more below its fair share at any sample.</p>\n");
        }
        for (ShareShortfall.Explanation e : why) {
            List<String> items = e.text().lines().toList();
            sb.append("<p>").append(Svg.esc(items.getFirst())).append(":</p>\n<ul>\n");
            for (String l : items.subList(1, items.size())) {
                sb.append("<li>").append(Svg.esc(l.strip())).append("</li>\n");
            }
            sb.append("</ul>\n");
        }
    }

    /** What the queue held and its fair share, in percent of the cluster's {@code resource}. */
    private static double[] heldAndFairOf(RunResult r, Sample s, String queue, String resource) {
        dev.muster.core.queue.FairShare.Share share = s.shares().get(queue);
        long total = r.allocatable().get(resource);
        return share == null || total <= 0 ? new double[2]
                : new double[] {100.0 * share.held().get(resource) / total, 100.0 * share.fairShare().get(resource) / total};
    }

    /** Each preemption decision: when, for whom, whose pods, and the shares before and after. */
    private static void takingBack(StringBuilder sb, RunResult r) {
        List<String> lines = TakingBack.lines(r);
        sb.append("<h2>Taking capacity back</h2>\n<p>").append(Svg.esc(lines.getFirst().replaceFirst("^Taking capacity back\\s+", ""))).append("</p>\n");
        if (lines.size() > 1) {
            sb.append("<pre>");
            lines.subList(1, lines.size()).forEach(l -> sb.append(Svg.esc(l.strip().startsWith("share") ? "    " + l.strip() : l.strip())).append('\n'));
            sb.append("</pre>\n");
        }
    }

    private interface Value {
        double of(Sample s);
    }

    private static Svg.Series series(RunResult r, String name, String color, boolean dashed, double opacity, Value value) {
        double[] xs = new double[r.samples().size()];
        double[] ys = new double[xs.length];
        for (int i = 0; i < xs.length; i++) {
            Sample s = r.samples().get(i);
            xs[i] = s.at() / 1e9;
            ys[i] = value.of(s);
        }
        return new Svg.Series(name, color, dashed, opacity, xs, ys);
    }

    /** The resources some queue's capability names (cpu first), else cpu. */
    private static List<String> queueResources(RunResult r) {
        Set<String> out = new LinkedHashSet<>();
        out.add(ResourceNames.CPU);
        for (QueueObject q : r.queues()) {
            out.addAll(r.shownResources(q.name()));
        }
        return new ArrayList<>(out);
    }

    private static double unit(String resource, Resources r) {
        long v = r.get(resource);
        return switch (resource) {
            case ResourceNames.CPU -> v / 1000.0;
            case ResourceNames.MEMORY -> v / (double) (1L << 30);
            default -> v;
        };
    }

    private static String label(String resource) {
        return switch (resource) {
            case ResourceNames.CPU -> "cpu (cores)";
            case ResourceNames.MEMORY -> "memory (Gi)";
            case PodShape.GPU -> "GPUs (nvidia.com/gpu)";
            default -> resource;
        };
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(java.util.Locale.ROOT, "%.2f", d);
    }
}
