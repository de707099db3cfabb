package dev.muster.demo;

import dev.muster.common.config.Flags;
import dev.muster.common.ops.ProcessLogging;
import dev.muster.controller.Controller;
import dev.muster.demo.cluster.ClusterEvictor;
import dev.muster.demo.cluster.EmbeddedCluster;
import dev.muster.demo.cluster.Kubelet;
import dev.muster.demo.cluster.Watch;
import dev.muster.demo.driver.SchedulerDriver;
import dev.muster.demo.scenario.Scenario;
import dev.muster.demo.scenario.WorkloadPlan;
import dev.muster.demo.time.SimClock;
import dev.muster.demo.time.SimTimer;
import dev.muster.server.ServerDefaults;
import dev.muster.testsupport.extender.ExtenderClient;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/**
 * {@code serve --embedded}: the extender and the controller on an embedded cluster (the scenario's nodes
 * {@code node-1..N} and Queues) on fixed loopback ports, until Ctrl-C; with {@code --workload} the scenario's
 * workload is played on it as in the demo (scheduled by the kube-scheduler stand-in), so queues change.
 */
final class ServeCommand {
    private ServeCommand() {}

    /** What {@code serve} was asked for. */
    record Options(Scenario scenario, EmbeddedMuster.Ports ports, boolean workload) {}

    /** The arguments read and checked, nothing started: a bad flag or scenario throws, naming it. */
    static Options options(List<String> args, Map<String, String> env, Path workDir) {
        Flags flags = Flags.parse(args, Set.of("embedded", "scenario", "workload", "http-port", "ops-port", "grpc-port",
                "controller-grpc-port", "speed"), env);
        if (!flags.bool("embedded", false)) {
            throw new IllegalArgumentException("serve runs only on the embedded cluster here: write serve --embedded "
                    + "(against a real cluster run the extender and controller as deployed, see README)");
        }
        Scenario scenario = DemoCommand.scenario(flags, workDir);
        EmbeddedMuster.Ports ports = new EmbeddedMuster.Ports("127.0.0.1", port(flags, "http-port", ServerDefaults.HTTP_PORT),
                port(flags, "ops-port", ServerDefaults.OPS_PORT), port(flags, "grpc-port", ServerDefaults.GRPC_PORT),
                port(flags, "controller-grpc-port", 9091));
        return new Options(scenario, ports, flags.bool("workload", false));
    }

    static int run(List<String> args, Map<String, String> env, Path workDir, PrintStream out, PrintStream err) throws Exception {
        ProcessLogging.install(); // the processes' logs on stderr, in the deployed format
        Options options = options(args, env, workDir);
        Scenario scenario = options.scenario();
        EmbeddedMuster.Ports ports = options.ports();
        boolean workload = options.workload();

        SimClock clock = new SimClock(scenario.settings().speed());
        EmbeddedCluster cluster = new EmbeddedCluster(clock::nanos);
        int nodes = DemoRun.createNodesAndQueues(scenario, cluster);
        List<AutoCloseable> started = new ArrayList<>();
        SimTimer timer = new SimTimer(clock, "sim-time");
        started.add(timer);
        ClusterEvictor evictor = new ClusterEvictor(cluster, clock::nanos);
        started.add(evictor);
        EmbeddedMuster muster = EmbeddedMuster.start(cluster, ports, DemoRun.musterOptions(scenario.settings(), evictor), null);
        started.add(muster);
        Watch kubelet = cluster.watch("kubelet", new Kubelet(cluster, timer, scenario.settings().podStartup()));
        started.add(kubelet);
        if (workload) {
            SchedulerDriver driver = new SchedulerDriver(DemoRun.driverOptions(scenario.settings()),
                    new ExtenderClient(muster.extenderUrl(), scenario.settings().gangDeadline().plusSeconds(30)));
            started.add(driver);
            started.add(cluster.watch("kube-scheduler", driver));
            driver.start();
            for (WorkloadPlan.Item item : WorkloadPlan.of(scenario).items()) {
                timer.at(item.at(), () -> DemoRun.create(cluster, item));
            }
        }
        clock.resume();

        String host = ports.host();
        out.println("Muster on an embedded cluster: scenario \"" + scenario.name() + "\", " + nodes + " nodes (node-1..node-" + nodes
                + "), queues " + String.join(", ", scenario.queues().stream().map(q -> q.name()).toList())
                + (workload ? "; playing the scenario's workload, time compressed " + DemoCommand.speed(scenario.settings().speed()) + "x" : "; no workload"));
        out.println("  extender verbs   " + muster.extenderUrl() + "/filter  /prioritize  /bind  (and /healthz /readyz /metrics)");
        out.println("  extender ops     http://" + host + ":" + muster.extender().opsPort() + "/metrics");
        out.println("  extender gRPC    " + host + ":" + muster.extender().grpcPort() + "  muster.v1.Extender, muster.v1.Allocations (reflection on)");
        out.println("  controller gRPC  " + host + ":" + muster.controllerGrpcPort() + "  muster.v1.Queues (reflection on)");
        out.println("Try, from the repository root:");
        out.println("  curl -s -d @server/src/test/resources/fixtures/kube-scheduler-v1.36/nodecache-true/filter-request.json "
                + muster.extenderUrl() + "/filter");
        out.println("  grpcurl -plaintext " + host + ":" + muster.controllerGrpcPort() + " muster.v1.Queues/List");
        out.println("  java -jar demo/target/muster-demo-0.1.0-SNAPSHOT.jar queues --watch --controller " + host + ":" + muster.controllerGrpcPort()
                + "   (a JDK 21+ java)");
        out.println("Ctrl-C stops.");
        out.flush();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (int i = started.size() - 1; i >= 0; i--) {
                try {
                    started.get(i).close();
                } catch (Exception e) {
                    err.println("muster-demo serve: stopping " + started.get(i) + ": " + e);
                }
            }
            stopped.countDown();
        }, "muster-demo-shutdown"));
        stopped.await();
        return 0;
    }

    private static int port(Flags flags, String name, int defaultValue) {
        int p = flags.integer(name, defaultValue);
        if (p < 0 || p > 65535) {
            throw new IllegalArgumentException("--" + name + ": " + p + " is not a port (0-65535)");
        }
        return p;
    }
}
