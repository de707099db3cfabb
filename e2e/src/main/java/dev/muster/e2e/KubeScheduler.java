package dev.muster.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * An unmodified kube-scheduler whose configuration is the project's own {@code extender-config/scheduler-config.yaml}
 * with only what a loopback run must change: the extender's address, the kubeconfig, and no leader election.
 */
public final class KubeScheduler implements AutoCloseable {
    private final Proc proc;
    private final int port;

    private KubeScheduler(Proc proc, int port) {
        this.proc = proc;
        this.port = port;
    }

    /** The project's configuration with Muster as the extender at {@code extenderUrl}. */
    public static KubeScheduler start(ControlPlane cp, Path projectConfig, String extenderUrl) {
        return start(cp, projectConfig, extenderUrl, cfg -> {});
    }

    /** The same profile without any extender: kube-scheduler alone, for comparisons. */
    public static KubeScheduler startAlone(ControlPlane cp, Path projectConfig) {
        return start(cp, projectConfig, null, cfg -> {});
    }

    /**
     * @param extenderUrl the extender's URL, or null to drop the extender (kube-scheduler alone)
     * @param customize   further changes to the configuration (e.g. clientConnection.qps in benchmarks), applied last
     */
    public static KubeScheduler start(ControlPlane cp, Path projectConfig, String extenderUrl,
                                      java.util.function.Consumer<Map<String, Object>> customize) {
        return start(cp, projectConfig, extenderUrl, customize, "kube-scheduler");
    }

    /**
     * @param name names its configuration file and log in the control plane's data directory: a second scheduler
     *             beside the first needs its own
     */
    public static KubeScheduler start(ControlPlane cp, Path projectConfig, String extenderUrl,
                                      java.util.function.Consumer<Map<String, Object>> customize, String name) {
        return start(cp, projectConfig, extenderUrl, customize, name, List.of());
    }

    /**
     * @param extraArgs further command-line flags, e.g. the feature gates a cluster admin passes to every control-plane
     *                  component ({@code --feature-gates=GenericWorkload=true,GangScheduling=true})
     */
    @SuppressWarnings("unchecked")
    public static KubeScheduler start(ControlPlane cp, Path projectConfig, String extenderUrl,
                                      java.util.function.Consumer<Map<String, Object>> customize, String name, List<String> extraArgs) {
        try {
            Map<String, Object> cfg = new Yaml().load(Files.readString(projectConfig));
            cfg.put("clientConnection", new java.util.LinkedHashMap<>(Map.of("kubeconfig", cp.schedulerKubeconfig().toAbsolutePath().toString())));
            cfg.put("leaderElection", Map.of("leaderElect", false));
            List<Map<String, Object>> extenders = (List<Map<String, Object>>) cfg.get("extenders");
            if (extenders == null || extenders.isEmpty()) {
                throw new IllegalStateException(projectConfig + ": expected Muster as the extender");
            }
            if (extenderUrl == null) {
                cfg.remove("extenders");
            } else {
                extenders.forEach(e -> e.put("urlPrefix", extenderUrl)); // every entry is Muster (filter; bind for gang members)
            }
            customize.accept(cfg);
            DumperOptions o = new DumperOptions();
            o.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
            Path file = cp.dataDir().resolve(name + "-config.yaml");
            Files.writeString(file, new Yaml(o).dump(cfg));
            int port = ControlPlane.freePort();
            List<String> cmd = new java.util.ArrayList<>(List.of(cp.bin("kube-scheduler"), "--config=" + file, "--bind-address=127.0.0.1",
                    "--secure-port=" + port, "--authentication-kubeconfig=" + cp.schedulerKubeconfig(),
                    "--authorization-kubeconfig=" + cp.schedulerKubeconfig(), "-v=1"));
            cmd.addAll(extraArgs);
            Proc p = Proc.start(name, cmd, Map.of(), cp.dataDir().resolve(name + ".log"));
            KubeScheduler s = new KubeScheduler(p, port);
            p.awaitReady("healthy", Duration.ofSeconds(60), () -> Http.ok("https://127.0.0.1:" + port + "/healthz", null));
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** kube-scheduler's Prometheus metrics (its secure port; the admin token is authorized). */
    public String metrics(String adminToken) {
        return Http.get("https://127.0.0.1:" + port + "/metrics", adminToken).body();
    }

    /** Whether kube-scheduler's /readyz answers OK (its informers have synced; always allowed without a token). */
    public boolean ready() {
        return Http.ok("https://127.0.0.1:" + port + "/readyz", null);
    }

    public Path log() {
        return proc.log();
    }

    public long pid() {
        return proc.pid();
    }

    @Override
    public void close() {
        proc.close();
    }
}
