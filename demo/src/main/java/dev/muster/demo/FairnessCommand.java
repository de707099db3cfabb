package dev.muster.demo;

import dev.muster.common.config.Flags;
import dev.muster.demo.fairness.FairShareReport;
import dev.muster.demo.fairness.FairShareSimulation;
import dev.muster.demo.scenario.Scenario;
import dev.muster.demo.scenario.ScenarioReader;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code fairness [--scenario FILE]}: plays a scenario (built-in: scenarios/contended.yaml) on the scheduling core in
 * simulated time ({@link FairShareSimulation}) and prints each queue's share against its fair share. Stateless.
 */
final class FairnessCommand {
    static final String BUILT_IN = "/scenarios/contended.yaml";

    private FairnessCommand() {}

    static int run(List<String> args, Map<String, String> env, Path workDir, PrintStream out) {
        Flags flags = Flags.parse(args, Set.of("scenario"), env);
        String file = flags.optional("scenario");
        Scenario s = file == null ? ScenarioReader.builtIn(BUILT_IN) : DemoCommand.load(file, workDir);
        DemoLogging.warningsOnly();
        out.print(FairShareReport.render(s, FairShareSimulation.run(s)));
        out.flush();
        return 0;
    }
}
