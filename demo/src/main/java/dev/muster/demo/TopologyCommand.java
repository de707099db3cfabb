package dev.muster.demo;

import dev.muster.common.config.Flags;
import dev.muster.demo.scenario.TopologyScenario;
import dev.muster.demo.scenario.TopologyScenarioReader;
import dev.muster.demo.topology.TopologyReport;
import dev.muster.demo.topology.TopologySimulation;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code topology [--scenario FILE]}: plays a topology scenario twice on the scheduling core, with the gangs' topology
 * requests and without, on the same seed, and prints how many racks each gang spans and how many whole racks stay
 * free over time. Stateless.
 */
final class TopologyCommand {
    private TopologyCommand() {}

    static int run(List<String> args, Map<String, String> env, Path workDir, PrintStream out) {
        Flags flags = Flags.parse(args, Set.of("scenario"), env);
        String file = flags.optional("scenario");
        TopologyScenario s = file == null ? TopologyScenarioReader.builtIn() : load(file, workDir);
        DemoLogging.warningsOnly();
        TopologySimulation.Run aware = TopologySimulation.run(s, true);
        TopologySimulation.Run unaware = TopologySimulation.run(s, false);
        out.print(TopologyReport.render(s, aware, unaware));
        out.flush();
        return 0;
    }

    /** A file (relative to where the user started), else {@code topology} (or {@code topology.yaml}): the built-in one. */
    private static TopologyScenario load(String file, Path workDir) {
        Path path = DemoCommand.resolve(file, workDir);
        if (java.nio.file.Files.exists(path)) {
            return TopologyScenarioReader.load(path);
        }
        if (DemoCommand.builtInName(file).equals("topology")) {
            return TopologyScenarioReader.builtIn();
        }
        throw new dev.muster.demo.scenario.ScenarioException(file, 0, "", DemoCommand.notFound(file, path, workDir, List.of("topology")));
    }
}
