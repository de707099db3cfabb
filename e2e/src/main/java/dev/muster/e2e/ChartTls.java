package dev.muster.e2e;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.UpgradeCommand;
import io.kubernetes.client.openapi.models.V1Secret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The chart's mutual TLS as installed, for tests that run a second extender and kube-scheduler with it: the Secrets
 * Helm wrote, the extender flags and the KubeSchedulerConfiguration the chart rendered, and {@code helm upgrade}.
 */
public final class ChartTls {
    /** The extender's Service name, which its certificate names and kube-scheduler checks ({@code tlsConfig.serverName}). */
    public static final String SERVICE = "muster-extender.muster-system.svc";
    public static final List<String> SECRETS = List.of("muster-extender-tls", "muster-scheduler-client-tls", "muster-controller-client-tls",
            "muster-operator-client-tls");

    private final ControlPlane cp;
    private final Kube admin;
    private final MusterInstall install;
    private final Path repo;

    /** The chart installed by {@code install} into {@code cp} from {@code repo}/charts/muster, read with {@code admin}. */
    public ChartTls(ControlPlane cp, Kube admin, MusterInstall install, Path repo) {
        this.cp = cp;
        this.admin = admin;
        this.install = install;
        this.repo = repo;
    }

    /** {@code helm upgrade} of the release with the chart's defaults and {@code values} (key, value, key, value…). */
    public void upgrade(String... values) {
        UpgradeCommand upgrade = new Helm(repo.resolve("charts/muster")).upgrade().withName(MusterInstall.RELEASE)
                .withNamespace(MusterInstall.NAMESPACE).withKubeConfig(cp.adminKubeconfig());
        for (int i = 0; i < values.length; i += 2) {
            upgrade.set(values[i], values[i + 1]);
        }
        MusterInstall.helm(upgrade::call);
    }

    /** The Secret's data, as text. */
    public Map<String, String> secret(String name) {
        V1Secret s = secretObject(name);
        Map<String, String> out = new HashMap<>();
        s.getData().forEach((k, v) -> out.put(k, new String(v, java.nio.charset.StandardCharsets.US_ASCII)));
        return out;
    }

    public V1Secret secretObject(String name) {
        return Kube.call("read " + name, () -> admin.core().readNamespacedSecret(name, MusterInstall.NAMESPACE).execute());
    }

    /** The Secret's tls.crt, tls.key and ca.crt as files in {@code dir}, as its volume mount holds them. */
    public Path secretFiles(String name, Path dir) throws IOException {
        Files.createDirectories(dir);
        for (Map.Entry<String, String> e : secret(name).entrySet()) {
            Files.writeString(dir.resolve(e.getKey()), e.getValue());
        }
        return dir;
    }

    /** The chart's kube-scheduler configuration (its ConfigMap), written to {@code file}. */
    public Path schedulerConfig(Path file) throws IOException {
        String configMap = Kube.call("read the chart's scheduler config", () -> admin.core()
                .readNamespacedConfigMap("muster-scheduler-config", MusterInstall.NAMESPACE).execute()).getData().get("scheduler-config.yaml");
        return Files.writeString(file, configMap);
    }

    /** The annotation {@code key} of the pod template of the chart's kube-scheduler Deployment (e.g. its restart checksum). */
    public String schedulerPodAnnotation(String key) {
        var d = Kube.call("read the scheduler Deployment", () -> new io.kubernetes.client.openapi.apis.AppsV1Api(cp.adminClient())
                .readNamespacedDeployment("muster-scheduler", MusterInstall.NAMESPACE).execute());
        return d.getSpec().getTemplate().getMetadata().getAnnotations().get(key);
    }

    /**
     * The chart's configuration run by an unmodified kube-scheduler for profile {@code schedulerName}: the client
     * certificate files of {@code client} in place of its mount, the extender at 127.0.0.1, checked against the Service name.
     */
    @SuppressWarnings("unchecked")
    public KubeScheduler kubeScheduler(Path chartConfig, int http, Path client, String schedulerName, String name) {
        return KubeScheduler.start(cp, chartConfig, "https://127.0.0.1:" + http, cfg -> {
            ((List<Map<String, Object>>) cfg.get("profiles")).get(0).put("schedulerName", schedulerName);
            clientFiles(client).accept(cfg);
            for (Map<String, Object> e : (List<Map<String, Object>>) cfg.get("extenders")) {
                e.remove("managedResources"); // this profile has no gang marker policy: bind every pod through Muster
            }
        }, name);
    }

    /**
     * Points every extender entry's {@code tlsConfig} of a kube-scheduler configuration at the client certificate files
     * of {@code client} (in place of the chart's mount), checking the extender's certificate against the Service name.
     */
    @SuppressWarnings("unchecked")
    public static java.util.function.Consumer<Map<String, Object>> clientFiles(Path client) {
        return cfg -> {
            for (Map<String, Object> e : (List<Map<String, Object>>) cfg.getOrDefault("extenders", List.of())) { // none: kube-scheduler alone
                Map<String, Object> tls = (Map<String, Object>) e.get("tlsConfig");
                tls.put("certFile", client.resolve("tls.crt").toString());
                tls.put("keyFile", client.resolve("tls.key").toString());
                tls.put("caFile", client.resolve("ca.crt").toString());
                tls.put("serverName", SERVICE);
            }
        };
    }

    /** The chart's extender Deployment's argument that starts with {@code prefix}, whole. */
    public String extenderFlag(String prefix) {
        return flag("extender", prefix);
    }

    /** The argument of the chart's Deployment of {@code component} that starts with {@code prefix}, whole. */
    public String flag(String component, String prefix) {
        var deployments = Kube.call("list deployments", () -> new io.kubernetes.client.openapi.apis.AppsV1Api(cp.adminClient())
                .listNamespacedDeployment(MusterInstall.NAMESPACE).labelSelector("app.kubernetes.io/component=" + component).execute()).getItems();
        return deployments.getFirst().getSpec().getTemplate().getSpec().getContainers().getFirst().getArgs().stream()
                .filter(a -> a.startsWith(prefix)).findFirst().orElseThrow(() -> new IllegalStateException("the chart passes no " + prefix));
    }

    /** The chart's extender flags with the TLS files of {@code ext} (its Secret's files in place of its mount). */
    public List<String> extenderArgs(Path ext, int http, int grpc, String schedulerName) {
        return List.of("--kubeconfig=" + install.kubeconfigFor("extender"), "--http-port=" + http, "--grpc-port=" + grpc,
                "--leader-elect=false", "--scheduler-name=" + schedulerName, "--gang-marker=false",
                "--tls-cert-file=" + ext.resolve("tls.crt"), "--tls-key-file=" + ext.resolve("tls.key"), "--tls-client-ca-file=" + ext.resolve("ca.crt"),
                "--grpc-tls-cert-file=" + ext.resolve("tls.crt"), "--grpc-tls-key-file=" + ext.resolve("tls.key"),
                "--grpc-tls-client-ca-file=" + ext.resolve("ca.crt"), extenderFlag("--tls-client-roles="));
    }
}
