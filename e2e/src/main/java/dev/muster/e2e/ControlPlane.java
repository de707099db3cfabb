package dev.muster.e2e;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;

/**
 * A real Kubernetes control plane on loopback, as processes: etcd and kube-apiserver (RBAC authorization, token
 * authentication, service-account token signing), from unmodified binaries. No kubelet and no controller
 * manager: nodes are objects ({@link Nodes}), nothing runs pods.
 *
 * <p>Reusable by tests and benchmarks: binaries, data directory, ports and extra API server flags are
 * parameters ({@link Options}). The admin token is for set-up only; Muster's processes get ServiceAccount tokens
 * ({@link MusterInstall}).
 */
public final class ControlPlane implements AutoCloseable {
    /** The environment variable naming the folder that holds etcd, kube-apiserver and kube-scheduler (envtest's convention). */
    public static final String BINARIES_ENV = "MUSTER_K8S_BINARIES";
    /** What the end-to-end tests need and where such binaries come from; shown (once) when they are missing. */
    public static final String HOW_TO_GET = "the end-to-end tests need Kubernetes v1.36 control-plane binaries in one folder "
            + "named by " + BINARIES_ENV + ": etcd (3.5), kube-apiserver, kube-scheduler, kube-controller-manager and kubemark. "
            + "The Kubernetes ones come from the Kubernetes release downloads (the server binaries of v1.36) or from building "
            + "Kubernetes v1.36 from source (make WHAT=\"cmd/kube-apiserver cmd/kube-scheduler cmd/kube-controller-manager cmd/kubemark\"); etcd from the etcd project's "
            + "releases. Then: export " + BINARIES_ENV + "=/path/to/that/folder and run the tests again";

    /**
     * @param binaries        folder with etcd, kube-apiserver, kube-scheduler
     * @param dataDir         working folder (etcd data, certificates, logs); created if absent
     * @param keepData        leave {@code dataDir} behind on close (for looking at logs)
     * @param extraApiserverArgs e.g. feature gates
     */
    public record Options(Path binaries, Path dataDir, boolean keepData, List<String> extraApiserverArgs) {
        public static Options fromEnvironment(Path dataDir) {
            return new Options(binariesFromEnvironment().orElseThrow(() -> new IllegalStateException(HOW_TO_GET)), dataDir,
                    Boolean.getBoolean("muster.e2e.keep"), List.of());
        }
    }

    /** The binaries folder from {@link #BINARIES_ENV}, if it is set and holds the three binaries. */
    public static java.util.Optional<Path> binariesFromEnvironment() {
        String dir = System.getenv(BINARIES_ENV);
        if (dir == null || dir.isBlank()) {
            return java.util.Optional.empty();
        }
        Path p = Path.of(dir);
        for (String b : List.of("etcd", "kube-apiserver", "kube-scheduler")) {
            if (!Files.isExecutable(p.resolve(b))) {
                throw new IllegalStateException(BINARIES_ENV + "=" + dir + " has no executable " + b + "; " + HOW_TO_GET);
            }
        }
        return java.util.Optional.of(p);
    }

    private final Options options;
    private final String adminToken = UUID.randomUUID().toString();
    private final String schedulerToken = UUID.randomUUID().toString();
    private final int apiPort;
    private final Pki.ServingCert serving;
    private final List<Proc> procs = new ArrayList<>();
    private final Path adminKubeconfig;
    private final Path schedulerKubeconfig;

    private ControlPlane(Options options) throws IOException, InterruptedException, GeneralSecurityException {
        this.options = options;
        Path dir = options.dataDir();
        Files.createDirectories(dir);
        serving = Pki.servingCert(dir);
        Pki.serviceAccountKeys(dir.resolve("sa.pub"), dir.resolve("sa.key"));
        Files.writeString(dir.resolve("tokens.csv"), adminToken + ",admin,admin-uid,\"system:masters\"\n"
                + schedulerToken + ",system:kube-scheduler,scheduler-uid,\"\"\n");
        int etcdPort = freePort();
        int peerPort = freePort();
        apiPort = freePort();
        Proc etcd = Proc.start("etcd", List.of(bin("etcd"), "--data-dir", dir.resolve("etcd").toString(), "--name", "default",
                "--listen-client-urls", "http://127.0.0.1:" + etcdPort, "--advertise-client-urls", "http://127.0.0.1:" + etcdPort,
                "--listen-peer-urls", "http://127.0.0.1:" + peerPort, "--initial-advertise-peer-urls", "http://127.0.0.1:" + peerPort,
                "--initial-cluster", "default=http://127.0.0.1:" + peerPort, "--log-level", "warn"), Map.of(), dir.resolve("etcd.log"));
        procs.add(etcd);
        etcd.awaitReady("healthy", Duration.ofSeconds(30),
                () -> Http.get("http://127.0.0.1:" + etcdPort + "/health", null).body().contains("\"health\":\"true\""));
        List<String> api = new ArrayList<>(List.of(bin("kube-apiserver"), "--etcd-servers=http://127.0.0.1:" + etcdPort,
                "--bind-address=127.0.0.1", "--secure-port=" + apiPort, "--advertise-address=127.0.0.1",
                "--endpoint-reconciler-type=none", "--tls-cert-file=" + serving.certFile(), "--tls-private-key-file=" + serving.keyFile(),
                "--client-ca-file=" + serving.certFile(), "--token-auth-file=" + dir.resolve("tokens.csv"),
                "--authorization-mode=RBAC", "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
                "--service-account-key-file=" + dir.resolve("sa.pub"), "--service-account-signing-key-file=" + dir.resolve("sa.key"),
                "--service-cluster-ip-range=10.0.0.0/24", "-v=1"));
        api.addAll(options.extraApiserverArgs());
        Proc apiserver = Proc.start("kube-apiserver", api, Map.of(), dir.resolve("kube-apiserver.log"));
        procs.add(apiserver);
        apiserver.awaitReady("ready", Duration.ofSeconds(60), () -> Http.ok(url() + "/readyz", adminToken));
        adminKubeconfig = writeKubeconfig(dir.resolve("admin.kubeconfig"), adminToken);
        schedulerKubeconfig = writeKubeconfig(dir.resolve("scheduler.kubeconfig"), schedulerToken);
    }

    /** Starts etcd and kube-apiserver and waits until the API server is ready. */
    public static ControlPlane start(Options options) {
        try {
            return new ControlPlane(options);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public String url() {
        return "https://127.0.0.1:" + apiPort;
    }

    public Path dataDir() {
        return options.dataDir();
    }

    public Path binaries() {
        return options.binaries();
    }

    public Path caFile() {
        return serving.certFile();
    }

    public String adminToken() {
        return adminToken;
    }

    public Path adminKubeconfig() {
        return adminKubeconfig;
    }

    /** Credentials of the built-in {@code system:kube-scheduler} user. */
    public Path schedulerKubeconfig() {
        return schedulerKubeconfig;
    }

    /** An admin client (set-up and assertions only). */
    public ApiClient adminClient() {
        return client(adminKubeconfig);
    }

    public static ApiClient client(Path kubeconfig) {
        try {
            ApiClient c = Config.fromConfig(kubeconfig.toString());
            c.setReadTimeout(60_000);
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a kubeconfig for this API server that authenticates with {@code token}. */
    public Path writeKubeconfig(Path file, String token) {
        String yaml = "apiVersion: v1\nkind: Config\n"
                + "clusters:\n- name: e2e\n  cluster:\n    server: " + url() + "\n    certificate-authority: " + caFile().toAbsolutePath() + "\n"
                + "users:\n- name: user\n  user:\n    token: " + token + "\n"
                + "contexts:\n- name: e2e\n  context:\n    cluster: e2e\n    user: user\n"
                + "current-context: e2e\n";
        try {
            Files.writeString(file, yaml);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    /** Process ids of etcd and kube-apiserver, by name (CPU accounting in benchmarks). */
    public Map<String, Long> pids() {
        Map<String, Long> out = new java.util.LinkedHashMap<>();
        for (Proc p : procs) {
            out.put(p.toString(), p.pid());
        }
        return out;
    }

    String bin(String name) {
        return options.binaries().resolve(name).toString();
    }

    /** Ports this JVM has handed out: the kernel may offer a just-released port again, and two processes must not share one. */
    private static final java.util.Set<Integer> HANDED_OUT = new java.util.HashSet<>();

    /**
     * A free loopback port (bound and released; another process could take it, which is unlikely in a test), never one
     * this JVM has handed out before.
     */
    public static synchronized int freePort() {
        while (true) {
            try (ServerSocket s = new ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
                s.setReuseAddress(true);
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public void close() {
        for (int i = procs.size() - 1; i >= 0; i--) {
            procs.get(i).close();
        }
        if (!options.keepData()) {
            try (Stream<Path> files = Files.walk(options.dataDir())) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                // best effort: a temp folder
            }
        }
    }
}
