package dev.muster.demo;

import dev.muster.common.config.ProcessStart;
import dev.muster.demo.cli.QueuesCli;
import dev.muster.demo.cli.WhatWouldItTakeCli;
import dev.muster.demo.scenario.ScenarioException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code muster-demo <command>}: {@code demo} (the default), {@code serve --embedded}, {@code queues},
 * {@code gangs}, {@code gang}, {@code what-would-it-take}. Exit codes: 0 success; 1 the demo found a broken invariant, or a command failed; 2 bad arguments
 * or a bad scenario (one line naming the flag, or the file, line and field; the usage only with {@code --help}). Relative paths in flags are resolved
 * against the directory the user started from ({@value #WORKDIR_PROPERTY}, else the working directory).
 */
public final class Main {
    static final String USAGE = """
            usage: muster-demo [command] [flags]

              demo [--scenario FILE] [--report PATH] [--speed X]
                  Run a scenario on an embedded cluster with the real extender and controller, print the report
                  table and write an HTML report (default target/muster-demo-report.html). The default command.
                  A relative FILE or PATH is relative to the directory you started from (under Maven too).
              serve --embedded [--scenario FILE] [--workload] [--http-port 8888] [--ops-port 8080]
                    [--grpc-port 9090] [--controller-grpc-port 9091] [--speed X]
                  Keep the extender and controller up on an embedded cluster (the scenario's nodes and queues)
                  on fixed loopback ports; --workload also plays the scenario's workload. Ctrl-C stops.
              queues [--watch] [--controller host:port]
                  The controller's queues (Queues.List, or Queues.Watch with --watch: a line when a queue changes,
                  at most one per queue per second). Default 127.0.0.1:9091.
              gangs [--all] [--controller host:port]
                  Every gang, the ones not running yet first, with the scheduler's reason (ListGangs); finished
                  gangs only with --all.
              gang NAMESPACE/NAME [--controller host:port]
                  A gang's state and the reason it is not running (Queues.GetGang).
              what-would-it-take NAMESPACE/NAME [--extender host:port]
                    [--tls-cert-file FILE --tls-key-file FILE] [--tls-ca-file FILE] [--tls-server-name NAME]
                  What it would take to run the gang now (Extender.WhatWouldItTake, a dry run: nothing changes):
                  nothing, the victims Muster would evict by queue and gang, or why it cannot run even with
                  preemption. Default 127.0.0.1:9090; TLS with a client certificate against a cluster's extender.
              topology [--scenario FILE]
                  Play a topology scenario (racked nodes, gangs asking for a rack or block) on the scheduling core
                  twice, topology-aware and not, on the same seed; print racks spanned per gang and free whole racks
                  over time (built-in: scenarios/topology.yaml).
              fairness [--scenario FILE]
                  Play a scenario on the scheduling core in simulated time (no HTTP, no kube-scheduler queue) and
                  print each queue's share against its fair share while every queue wants more
                  (built-in: scenarios/contended.yaml).

            Each flag can also be given as an environment variable MUSTER_<NAME>, e.g. MUSTER_SCENARIO.
            """;

    private Main() {}

    /**
     * The directory the user started from, when it is not this process's working directory: the exec plugin runs
     * the demo in {@code demo/}, and passes Maven's own working directory here (demo/pom.xml).
     */
    static final String WORKDIR_PROPERTY = "muster.workdir";

    public static void main(String[] args) throws Exception {
        String workDir = System.getProperty(WORKDIR_PROPERTY);
        System.exit(run(Arrays.asList(args), System.getenv(), Path.of(workDir == null || workDir.isBlank() ? "" : workDir).toAbsolutePath(),
                System.out, System.err));
    }

    /** @param workDir what relative paths in flags (--scenario, --report) are resolved against */
    static int run(List<String> args, Map<String, String> env, Path workDir, PrintStream out, PrintStream err) throws Exception {
        String command = args.isEmpty() || args.getFirst().startsWith("--") ? "demo" : args.getFirst();
        List<String> rest = args.isEmpty() || args.getFirst().startsWith("--") ? args : args.subList(1, args.size());
        if (rest.contains("--help") || rest.contains("-h") || command.equals("help")) {
            out.print(USAGE);
            return 0;
        }
        try {
            return switch (command) {
                case "demo" -> DemoCommand.run(rest, env, workDir, out, err);
                case "serve" -> ServeCommand.run(rest, env, workDir, out, err);
                case "queues" -> {
                    DemoLogging.warningsOnly();
                    yield QueuesCli.queues(rest, env, out, err);
                }
                case "topology" -> TopologyCommand.run(rest, env, workDir, out);
                case "fairness" -> FairnessCommand.run(rest, env, workDir, out);
                case "gang" -> {
                    DemoLogging.warningsOnly();
                    yield QueuesCli.gang(rest, env, out, err);
                }
                case "gangs" -> {
                    DemoLogging.warningsOnly();
                    yield QueuesCli.gangs(rest, env, out, err);
                }
                case "what-would-it-take" -> {
                    DemoLogging.warningsOnly();
                    yield WhatWouldItTakeCli.run(rest, env, out, err);
                }
                default -> {
                    err.println(ProcessStart.badFlagLine("muster-demo", "unknown command \"" + command + "\""));
                    yield 2;
                }
            };
        } catch (ScenarioException e) {
            err.println("muster-demo: bad scenario: " + e.getMessage());
            return 2;
        } catch (IllegalArgumentException e) {
            err.println(ProcessStart.badFlagLine("muster-demo " + command, e.getMessage()));
            return 2;
        }
    }
}
