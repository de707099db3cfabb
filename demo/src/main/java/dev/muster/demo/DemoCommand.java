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

    /** What {@code demo} was asked for. */
    record Options(Scenario scenario, Path report) {}

    /** The arguments read and checked, nothing run: a bad flag or scenario throws, naming it. */
    static Options options(List<String> args, Map<String, String> env, Path workDir) {
        Flags flags = Flags.parse(args, Set.of("scenario", "report", "speed"), env);
        Scenario scenario = scenario(flags, workDir);
        String given = flags.optional("report");
        return new Options(scenario, given == null ? Path.of(DEFAULT_REPORT).toAbsolutePath() : resolve(given, workDir));
    }

    static int run(List<String> args, Map<String, String> env, Path workDir, PrintStream out, PrintStream err) throws Exception {
        Options options = options(args, env, workDir);
        Scenario scenario = options.scenario();
        Path report = options.report();
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

    /** The scenarios shipped in the jar, by the name {@code --scenario} takes for them. */
    static final List<String> BUILT_IN = List.of("default", "contended", "idle-queue", "preemption");

    /**
     * {@code --scenario}'s value: a file (relative to where the user started), else the name of a built-in scenario
     * ({@code idle-queue}, or {@code idle-queue.yaml}).
     */
    static Scenario load(String file, Path workDir) {
        Path path = resolve(file, workDir);
        if (Files.exists(path)) {
            return ScenarioReader.load(path);
        }
        String name = builtInName(file);
        if (BUILT_IN.contains(name)) {
            return ScenarioReader.builtIn("/scenarios/" + name + ".yaml");
        }
        throw new ScenarioException(file, 0, "", notFound(file, path, workDir, BUILT_IN));
    }

    /** {@code idle-queue} for {@code idle-queue}, {@code idle-queue.yaml} or a path ending in it. */
    static String builtInName(String file) {
        String name = Path.of(file).getFileName().toString();
        return name.endsWith(".yaml") ? name.substring(0, name.length() - ".yaml".length()) : name;
    }

    /** "no such file: /abs/path (relative to …); the built-in scenarios are a, b, c" — one line. */
    static String notFound(String file, Path path, Path workDir, List<String> builtIn) {
        return "no such file: " + path + (Path.of(file).isAbsolute() ? "" : " (relative to " + workDir.toAbsolutePath()
                + ", where muster-demo was started)") + "; the built-in scenarios are " + String.join(", ", builtIn);
    }
}
