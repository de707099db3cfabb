package dev.muster.demo;

import dev.muster.common.config.Flags;
import dev.muster.demo.driver.ProgressLine;
import dev.muster.demo.report.HtmlReport;
import dev.muster.demo.report.RunResult;
import dev.muster.demo.report.TextReport;
import dev.muster.demo.scenario.Scenario;
import dev.muster.demo.scenario.ScenarioException;
import dev.muster.demo.scenario.ScenarioReader;
import dev.muster.demo.scenario.WorkloadPlan;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code demo [--scenario FILE] [--report PATH] [--speed X]}. A relative FILE or PATH is resolved against the directory
 * the user started from (see {@link Main#WORKDIR_PROPERTY}); the default report is {@value #DEFAULT_REPORT} in the
 * working directory ({@code demo/} under Maven). Stateless.
 */
final class DemoCommand {
    static final String DEFAULT_REPORT = "target/muster-demo-report.html";

    private DemoCommand() {}

    static int run(List<String> args, Map<String, String> env, Path workDir, PrintStream out, PrintStream err) throws Exception {
        Flags flags = Flags.parse(args, Set.of("scenario", "report", "speed"), env);
        Scenario scenario = scenario(flags, workDir);
        String given = flags.optional("report");
        Path report = given == null ? Path.of(DEFAULT_REPORT).toAbsolutePath() : resolve(given, workDir);
        Path log = report.resolveSibling("muster-demo.log");
        PrintStream userErr = DemoLogging.toFile(log);
        WorkloadPlan plan = WorkloadPlan.of(scenario);
        out.println("Muster demo: scenario \"" + scenario.name() + "\": " + scenario.nodeCount() + " nodes, " + scenario.queues().size()
                + " queues; " + plan.gangCount() + " gangs and " + (plan.items().size() - plan.gangCount()) + " single pods ("
                + plan.podCount() + " pods) arriving over " + Duration.ofNanos(plan.lastArrival()).toMinutes() + " simulated minutes, "
                + "time compressed " + speed(scenario.settings().speed()) + "x.");
        out.println("Real extender (HTTP verbs, gRPC) and controller (allocation stream over gRPC, status writes) on an embedded "
                + "cluster; logs: " + log);
        out.flush();
        RunResult result;
        try {
            result = new DemoRun(scenario, new ProgressLine(out, ProgressLine.stdoutIsTerminal(), Duration.ofSeconds(5))).run();
        } catch (RuntimeException e) {
            userErr.println("muster-demo: the run failed: " + e);
            e.printStackTrace(System.err);
            return 1;
        }
        out.println();
        out.print(TextReport.render(result));
        Files.createDirectories(report.getParent());
        Files.writeString(report, HtmlReport.render(result), StandardCharsets.UTF_8);
        out.println();
        out.println("HTML report: " + report);
        out.flush();
        return result.violations().isEmpty() ? 0 : 1;
    }

    static String speed(double s) {
        return s == Math.rint(s) ? Long.toString((long) s) : Double.toString(s);
    }

    /** {@code path} as given on the command line: a relative one is relative to {@code workDir}, where the user started. */
    static Path resolve(String path, Path workDir) {
        return workDir.resolve(path).toAbsolutePath().normalize();
    }

    static Scenario scenario(Flags flags, Path workDir) {
        String file = flags.optional("scenario");
        Scenario s = file == null ? ScenarioReader.builtIn() : load(file, workDir);
        double speed = flags.decimal("speed", s.settings().speed());
        if (!(speed > 0) || speed > 10_000) {
            throw new IllegalArgumentException("--speed must be more than 0 and at most 10000, got " + speed);
        }
        return s.withSpeed(speed);
    }

    private static Scenario load(String file, Path workDir) {
        Path path = resolve(file, workDir);
        if (!Files.exists(path)) {
            throw new ScenarioException(file, 0, "", "no such file: " + path
                    + (Path.of(file).isAbsolute() ? "" : " (relative to " + workDir.toAbsolutePath() + ", where muster-demo was started)"));
        }
        return ScenarioReader.load(path);
    }
}
