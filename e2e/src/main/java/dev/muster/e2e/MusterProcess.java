package dev.muster.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Muster's extender or controller started the way a user starts it outside a cluster: {@code java -jar} of the
 * packaged jar (its manifest names the main class and lib/), with a kubeconfig, loopback ports, and Lease leader
 * election in muster-system with the identity the chart's downward API would give (POD_NAME, POD_IP).
 */
public final class MusterProcess implements AutoCloseable {
    private final Proc proc;
    private final int opsPort;
    private final String name;

    private MusterProcess(String name, Proc proc, int opsPort) {
        this.name = name;
        this.proc = proc;
        this.opsPort = opsPort;
    }

    /** The packaged jar of {@code module} (server or controller) under {@code repo}. */
    public static Path jar(Path repo, String module, String version) {
        Path jar = repo.resolve(module).resolve("target").resolve("muster-" + module + "-" + version + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build it first (mvn -pl " + module + " -am package -DskipTests)");
        }
        return jar;
    }

    /**
     * Muster's two programs as the chart runs them: the module whose packaged jar each is, and the JVM flags a test or
     * benchmark starts it with (a small heap; the extender with the JIT the chart gives it, C1 alone,
     * {@code extender.compilationMode}, so its TLS is the chart's too: {@link dev.muster.common.tls.CipherOrder}).
     */
    public enum Program {
        EXTENDER("server", List.of("-Xmx512m", "-XX:+UseCompactObjectHeaders", "-XX:+UseSerialGC", "-XX:CompilationMode=quick-only",
                "-XX:CompileThresholdScaling=0.1")),
        CONTROLLER("controller", List.of("-Xmx512m", "-XX:+UseCompactObjectHeaders", "-XX:+UseSerialGC"));

        private final String module;
        private final List<String> jvm;

        Program(String module, List<String> jvm) {
            this.module = module;
            this.jvm = jvm;
        }

        /** The packaged jar under {@code repo}. */
        public Path jar(Path repo, String version) {
            return MusterProcess.jar(repo, module, version);
        }

        /** The JVM flags it runs with here. */
        public List<String> jvm() {
            return jvm;
        }
    }

    /** {@code program}'s packaged jar under {@code repo}, started with its {@link Program#jvm() flags}. */
    public static MusterProcess start(String name, Program program, Path repo, String version, List<String> args, Path logDir,
                                      int opsPort) {
        return start(name, program.jar(repo, version), program.jvm(), args, logDir, opsPort);
    }

    /**
     * @param jvmArgs flags for the JVM (heap, GC, JFR), before {@code -jar}; the system property
     *                {@code muster.e2e.jvm.<name>} adds more, separated by semicolons (e.g.
     *                {@code -Dmuster.e2e.jvm.controller=-XX:DumpLoadedClassList=/tmp/controller.classlist})
     */
    public static MusterProcess start(String name, Path jar, List<String> jvmArgs, List<String> args, Path logDir, int opsPort) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmArgs);
        String extra = System.getProperty("muster.e2e.jvm." + name, "");
        if (!extra.isBlank()) {
            cmd.addAll(List.of(extra.trim().split(";")));
        }
        cmd.addAll(List.of("-jar", jar.toString()));
        cmd.addAll(args);
        cmd.add("--ops-port=" + opsPort);
        try {
            Proc p = Proc.start(name, cmd, Map.of("POD_NAME", name, "POD_NAMESPACE", MusterInstall.NAMESPACE, "POD_IP", "127.0.0.1"),
                    logDir.resolve(name + ".log"));
            MusterProcess m = new MusterProcess(name, p, opsPort);
            m.awaitReady();
            return m;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The plain-HTTP port of /healthz, /readyz and /metrics. */
    public int opsPort() {
        return opsPort;
    }

    /** Waits for /readyz (first full sync done) on the ops port. */
    public void awaitReady() {
        proc.awaitReady("ready", Duration.ofSeconds(90), () -> Http.ok("http://127.0.0.1:" + opsPort + "/readyz", null));
    }

    public boolean healthy() {
        return Http.ok("http://127.0.0.1:" + opsPort + "/healthz", null);
    }

    /** The Prometheus text of /metrics. */
    public String metrics() {
        return Http.get("http://127.0.0.1:" + opsPort + "/metrics", null).body();
    }

    /** The value of an unlabelled gauge in /metrics, or NaN. */
    public double gauge(String metric) {
        for (String line : metrics().split("\n")) {
            if (line.startsWith(metric + " ")) {
                return Double.parseDouble(line.substring(metric.length() + 1).trim());
            }
        }
        return Double.NaN;
    }

    /**
     * The value of a counter's sample with one label in /metrics, 0 when it has none yet. Counters add up over every
     * test that shares this process: a test compares the value before and after what it does.
     */
    public double counter(String metric, String label, String value) {
        String sample = metric + "{" + label + "=\"" + value + "\"";
        for (String line : metrics().split("\n")) {
            if (line.startsWith(sample + ",} ") || line.startsWith(sample + "} ")) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    public void kill9() throws InterruptedException {
        proc.kill9();
    }

    /** Starts the same command again and waits until it is ready (it must win the Lease first). */
    public void restart() {
        try {
            proc.restart();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        awaitReady();
    }

    public String logTail(int lines) {
        return proc.tail(lines);
    }

    public Path log() {
        return proc.log();
    }

    public long pid() {
        return proc.pid();
    }

    /** {@code kill -STOP}: the process stops where it is (threads, timers, sockets), as a frozen or paused pod does. */
    public void freeze() {
        signal("STOP");
    }

    /** {@code kill -CONT}: a frozen process goes on from where it stopped. */
    public void thaw() {
        signal("CONT");
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).redirectErrorStream(true).start();
            if (kill.waitFor() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed: " + new String(kill.getInputStream().readAllBytes()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted sending SIG" + signal + " to " + name, e);
        }
    }

    @Override
    public void close() {
        proc.close();
    }

    @Override
    public String toString() {
        return name;
    }
}
