package dev.muster.bench;

import dev.muster.common.kube.KubeClients;
import dev.muster.core.model.PodId;
import dev.muster.e2e.ControlPlane;
import dev.muster.e2e.Kube;
import dev.muster.server.bind.BindOptions;
import dev.muster.server.bind.KubeBinder;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.Protocol;

/**
 * What one Binding POST costs the extender's process and the API server, on a real control plane: P pods bound by
 * {@link KubeBinder} to one node, C at a time (kube-scheduler binds concurrently): the Binding in protobuf over
 * {@link KubeClients#requests()} (okhttp's default, HTTP/2 over TLS) as the extender sends it, in JSON over the
 * same client, and in JSON over HTTP/1.1 with a keep-alive pool (tried, and measured costlier). Reports wall time, this JVM's CPU per bind (the binder
 * is all this process does while measuring; JIT and GC included, as in the extender) and the API server's.
 * Alternates the clients per round after one unreported warm-up round of each.
 *
 * <pre>
 * MUSTER_K8S_BINARIES=/path/to/k8s/bin mvn -q -pl bench -am verify -DskipTests -Pbench \
 *   -Dbench.main=dev.muster.bench.BindBench -Dbench.args="--pods 2000 --concurrency 16 --rounds 3"
 * </pre>
 */
public final class BindBench {
    private final int pods;
    private final int concurrency;
    private ControlPlane cp;
    private Kube admin;
    private int round;

    private BindBench(int pods, int concurrency) {
        this.pods = pods;
        this.concurrency = concurrency;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = BenchArgs.parse(Map.of("pods", "2000", "concurrency", "16", "rounds", "3"), args);
        new BindBench(Integer.parseInt(a.get("pods")), Integer.parseInt(a.get("concurrency"))).run(Integer.parseInt(a.get("rounds")));
        System.exit(0);
    }

    private void run(int rounds) throws Exception {
        Path dir = Files.createTempDirectory("muster-bindbench-");
        cp = ControlPlane.start(ControlPlane.Options.fromEnvironment(dir));
        try {
            admin = new Kube(cp.adminClient());
            admin.node("n0", "100000", "1000Ti", Map.of());
            ApiClient http2 = KubeClients.fromKubeconfig(cp.adminKubeconfig()).requests();
            ApiClient http11 = KubeClients.fromKubeconfig(cp.adminKubeconfig()).requests();
            http11.setHttpClient(http11.getHttpClient().newBuilder().protocols(List.of(Protocol.HTTP_1_1))
                    .connectionPool(new ConnectionPool(concurrency, 5, TimeUnit.MINUTES)).build());
            Map<String, java.util.function.Supplier<KubeBinder>> kinds = new LinkedHashMap<>();
            kinds.put("protobuf, HTTP/2 (as shipped)", () -> new KubeBinder(http2, BindOptions.DEFAULTS, KubeBinder.Encoding.PROTOBUF));
            kinds.put("JSON, HTTP/2", () -> new KubeBinder(http2, BindOptions.DEFAULTS, KubeBinder.Encoding.JSON));
            kinds.put("JSON, HTTP/1.1 keep-alive pool", () -> new KubeBinder(http11, BindOptions.DEFAULTS, KubeBinder.Encoding.JSON));
            for (var k : kinds.entrySet()) {
                measure(k.getValue()); // warm-up: JIT, connections
            }
            System.out.println("| Binding | binds | concurrency | wall s | binds/s | bench JVM CPU µs/bind | API server CPU µs/bind |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (int r = 0; r < rounds; r++) {
                for (var k : kinds.entrySet()) {
                    double[] m = measure(k.getValue());
                    System.out.printf(Locale.ROOT, "| %s | %d | %d | %.2f | %.0f | %.0f | %.0f |%n", k.getKey(), pods, concurrency, m[0], pods / m[0], m[1], m[2]);
                }
            }
        } finally {
            cp.close();
        }
    }

    /** Wall seconds, this JVM's CPU µs per bind, the API server's CPU µs per bind. */
    private double[] measure(java.util.function.Supplier<KubeBinder> binders) throws Exception {
        String ns = admin.namespace("bind-" + (++round));
        List<PodId> ids = createPods(ns);
        try (KubeBinder binder = binders.get()) {
            Semaphore window = new Semaphore(concurrency);
            List<CompletableFuture<Void>> done = new ArrayList<>(pods);
            double apiBefore = apiserverCpu();
            long cpuBefore = processCpuNanos();
            long t0 = System.nanoTime();
            for (PodId id : ids) {
                window.acquire();
                CompletableFuture<Void> f = binder.bind(id, "n0").toCompletableFuture();
                f.whenComplete((v, e) -> window.release());
                done.add(f);
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
            double wall = (System.nanoTime() - t0) / 1e9;
            double cpuPerBind = (processCpuNanos() - cpuBefore) / 1e3 / pods;
            double apiPerBind = (apiserverCpu() - apiBefore) * 1e6 / pods;
            return new double[] {wall, cpuPerBind, apiPerBind};
        } finally {
            Kube.call("delete pods", () -> admin.core().deleteCollectionNamespacedPod(ns).gracePeriodSeconds(0).execute());
        }
    }

    private List<PodId> createPods(String ns) throws Exception {
        List<PodId> ids = new ArrayList<>(pods);
        try (ExecutorService pool = Executors.newFixedThreadPool(16)) {
            List<Future<PodId>> created = new ArrayList<>(pods);
            for (int i = 0; i < pods; i++) {
                int n = i;
                created.add(pool.submit(() -> {
                    V1Pod pod = new V1Pod().metadata(new V1ObjectMeta().name("p" + n).namespace(ns))
                            .spec(new V1PodSpec().schedulerName("nobody").terminationGracePeriodSeconds(0L).overhead(null)
                                    .containers(List.of(new V1Container().name("c").image("x")
                                            .resources(new V1ResourceRequirements().requests(Map.of("cpu", new Quantity("100m")))))));
                    V1Pod made = Kube.call("create pod", () -> admin.core().createNamespacedPod(ns, pod).execute());
                    return new PodId(made.getMetadata().getUid(), ns, made.getMetadata().getName());
                }));
            }
            for (Future<PodId> f : created) {
                ids.add(f.get());
            }
        }
        return ids;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private double apiserverCpu() throws Exception {
        return ProcCpu.total(cp.pids().get("kube-apiserver"));
    }
}
