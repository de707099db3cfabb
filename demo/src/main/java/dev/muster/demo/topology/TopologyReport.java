package dev.muster.demo.topology;

import dev.muster.core.model.TopologyRequest;
import dev.muster.demo.scenario.TopologyScenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The text report of {@code muster-demo topology}: aware vs not aware, same seed. Stateless. */
public final class TopologyReport {
    private TopologyReport() {}

    /** Per run: started, waits, domains spanned; fragmentation over time; per workload the racks a gang spans. */
    public static String render(TopologyScenario s, TopologySimulation.Run aware, TopologySimulation.Run unaware) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Topology scenario \"%s\" (seed %d, %s): %d blocks × %d racks × %d nodes = %d nodes of %s%n",
                s.name(), s.seed(), s.scoring().name().toLowerCase(Locale.ROOT), s.blocks(), s.racksPerBlock(), s.nodesPerRack(),
                s.nodeCount(), s.node()));
        out.append(String.format(Locale.ROOT, "%-44s %14s %14s%n", "", "aware", "not aware"));
        row(out, "gangs started", count(aware, -1), count(unaware, -1));
        row(out, "gangs inside one rack", pct(aware, 1), pct(unaware, 1));
        row(out, "racks spanned per gang (mean)", mean(aware, false), mean(unaware, false));
        row(out, "racks spanned per gang (max)", max(aware), max(unaware));
        row(out, "blocks spanned per gang (mean)", mean(aware, true), mean(unaware, true));
        row(out, "wait before start, mean (simulated)", minutes(meanWait(aware)), minutes(meanWait(unaware)));
        row(out, "free whole racks, mean over samples", String.format(Locale.ROOT, "%.1f", meanFree(aware)),
                String.format(Locale.ROOT, "%.1f", meanFree(unaware)));
        row(out, "free whole racks, min", Integer.toString(minFree(aware)), Integer.toString(minFree(unaware)));
        row(out, "all gangs finished after (simulated)", minutes(aware.endNanos()), minutes(unaware.endNanos()));
        out.append(String.format(Locale.ROOT, "%nRacks spanned per gang, by workload (aware / not aware):%n"));
        for (TopologyScenario.Gangs g : s.gangs()) {
            out.append(String.format(Locale.ROOT, "  %-12s %-22s %s   /   %s%n", g.name(), describe(g.topology()),
                    histogram(aware, g.name()), histogram(unaware, g.name())));
        }
        out.append(String.format(Locale.ROOT, "%nFree whole racks over time (of %d):%n  %8s %6s %10s%n", s.racks(), "minute", "aware", "not aware"));
        int n = Math.min(aware.samples().size(), unaware.samples().size());
        int stride = Math.max(1, n / 30);
        for (int i = 0; i < n; i += stride) {
            out.append(String.format(Locale.ROOT, "  %8d %6d %10d%n", aware.samples().get(i).atNanos() / 60_000_000_000L,
                    aware.samples().get(i).freeWholeRacks(), unaware.samples().get(i).freeWholeRacks()));
        }
        return out.toString();
    }

    private static void row(StringBuilder out, String label, String a, String b) {
        out.append(String.format(Locale.ROOT, "%-44s %14s %14s%n", label, a, b));
    }

    private static String describe(TopologyRequest t) {
        if (t == null) {
            return "(no topology)";
        }
        String key = t.key();
        return t.mode().name().toLowerCase(Locale.ROOT) + ":" + key.substring(key.lastIndexOf('/') + 1);
    }

    private static List<TopologySimulation.GangResult> started(TopologySimulation.Run r) {
        List<TopologySimulation.GangResult> out = new ArrayList<>();
        for (TopologySimulation.GangResult g : r.gangs()) {
            if (g.started()) {
                out.add(g);
            }
        }
        return out;
    }

    private static String count(TopologySimulation.Run r, int unused) {
        return started(r).size() + "/" + r.gangs().size();
    }

    private static String pct(TopologySimulation.Run r, int racks) {
        List<TopologySimulation.GangResult> st = started(r);
        long in = st.stream().filter(g -> g.racks() <= racks).count();
        return st.isEmpty() ? "-" : String.format(Locale.ROOT, "%.0f %%", 100.0 * in / st.size());
    }

    private static String mean(TopologySimulation.Run r, boolean blocks) {
        return String.format(Locale.ROOT, "%.2f", started(r).stream().mapToInt(g -> blocks ? g.blocks() : g.racks()).average().orElse(0));
    }

    private static String max(TopologySimulation.Run r) {
        return Integer.toString(started(r).stream().mapToInt(TopologySimulation.GangResult::racks).max().orElse(0));
    }

    private static long meanWait(TopologySimulation.Run r) {
        return (long) started(r).stream().mapToLong(g -> g.startNanos() - g.arriveNanos()).average().orElse(0);
    }

    private static double meanFree(TopologySimulation.Run r) {
        return r.samples().stream().mapToInt(TopologySimulation.Sample::freeWholeRacks).average().orElse(0);
    }

    private static int minFree(TopologySimulation.Run r) {
        return r.samples().stream().mapToInt(TopologySimulation.Sample::freeWholeRacks).min().orElse(0);
    }

    private static String minutes(long nanos) {
        return String.format(Locale.ROOT, "%.1f min", nanos / 60e9);
    }

    /** "1 rack: 40, 2 racks: 3" for one workload's started gangs. */
    private static String histogram(TopologySimulation.Run r, String workload) {
        Map<Integer, Integer> h = new TreeMap<>();
        for (TopologySimulation.GangResult g : started(r)) {
            if (g.name().startsWith(workload + "-")) {
                h.merge(g.racks(), 1, Integer::sum);
            }
        }
        List<String> parts = new ArrayList<>();
        h.forEach((racks, n) -> parts.add(racks + (racks == 1 ? " rack: " : " racks: ") + n));
        return parts.isEmpty() ? "none started" : String.join(", ", parts);
    }
}
