package dev.muster.bench;

import dev.muster.e2e.ControlPlane;
import dev.muster.e2e.Http;
import dev.muster.e2e.Kube;
import dev.muster.e2e.KubeScheduler;
import dev.muster.e2e.MusterInstall;
import dev.muster.e2e.MusterProcess;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * kube-scheduler's throughput alone and with Muster in the loop, on a real control plane (the e2e fixture): N
 * fake nodes, P pods (100m cpu, 128Mi) created before the scheduler starts, then a fresh kube-scheduler; runs
 * alternate "alone" (the project's profile without extender), "fresh" (Muster started just before the scheduler,
 * as after a failover) and "warm" (one Muster kept across runs, after a warm-up batch). Reports pods/s (first to
 * last scheduled, from kube-scheduler's own counter), kube-scheduler's algorithm and extension-point latencies,
 * Muster's per-verb latency, and CPU seconds of every process during the run.
 *
 * <pre>
 * MUSTER_K8S_BINARIES=/path/to/k8s/bin mvn -q -pl bench -am verify -DskipTests -Pbench \
 *   -Dbench.main=dev.muster.bench.RealLoopBench -Dbench.args="--nodes 1000 --pods 2000 --gang 0 --rounds 3"
 * </pre>
 * {@code --config FILE} (relative to the repository) replaces extender-config/scheduler-config-insecure.yaml; {@code --scheduler-qps}
 * (default 1000) is kube-scheduler's client budget in every mode, {@code --modes} a subset of alone,fresh,warm,idle,start,fresh-plain,start-plain,fresh-after-pods (fresh-after-pods: the fresh
 * Muster is started once the batch's pods exist, just before kube-scheduler, so its first sync lists them; start: a fresh Muster started and stopped, its ready time and CPU at readiness; idle: kube-scheduler alone while the warm Muster
 * watches the same pods without being asked anything — what its informers cost),
 * {@code --muster-jvm "FLAG;FLAG"} extra JVM flags for Muster, separated by semicolons (e.g. {@code -XX:StartFlightRecording=filename=/tmp/m.jfr};
 * {@code -XX:CompilationMode=default} for the JVM's tiered C1 + C2 instead of the chart's C1 alone),
 * {@code --muster-args "FLAG;FLAG"} extra Muster flags (e.g. {@code --pick-node=false}), {@code --warmup N}
 * batches the warm Muster schedules before it is measured (default 6), {@code --class-data-archive false} starts Muster
 * without the class data archive its image maps (modes fresh-plain and start-plain: only that start) (made here from server/src/main/cds/classlist, as the Dockerfile does). Muster's CPU is also reported per thread group
 * ({@code muster/CN CompilerThre}: the JIT's C1 and C2 threads, {@code muster/ForkJoinPool-N-}: the virtual threads that answer the verbs
 * and bind), and the API server's requests while scheduling.
 * <pre>
 * </pre>
 */
public final class RealLoopBench {
    private final Path repo;
    private final String version;
    private final int nodes;
    private final int pods;
    private final int gang;
    private ControlPlane cp;
    private Kube admin;
    private MusterInstall install;
    private int round;
    private final Map<MusterProcess, Integer> musterHttp = new LinkedHashMap<>(); // extender → its verbs port

    private final Path config;

    private final int schedulerQps;
    /** Muster's JVM as the chart starts the extender: C1 alone ({@code extender.compilationMode}); a later {@code --muster-jvm} flag wins. */
    private final List<String> musterJvm = new ArrayList<>(List.of("-Xmx1g", "-XX:+UseSerialGC", "-XX:CompilationMode=quick-only"));
    private final List<String> musterArgs = new ArrayList<>();
    /**
     * Batches the warm Muster schedules before its runs are reported. Its JIT compiles the once-per-request methods (the
     * bind path through okhttp, the filter answer's encoder, the HTTP server's dispatcher loop) with C2 only after
     * thousands of requests — with one C2 thread on two cores, methods called once per pod wait behind those called
     * once per node or field, and queued ones go stale between batches. Per-thread CPU of 2,000-pod batches
     * (docs/benchmarks.md): C2 still spent 1.1–1.9 CPU-s in the 4th to 6th batch, 0.25 in the 7th, nothing in the 8th.
     * Six batches reach the steady state of a long-running extender.
     */
    private int warmupBatches = 6;
    /** Whether Muster maps a class data archive made as its image makes it (server/Dockerfile), as a deployed one does. */
    private boolean classDataArchive = true;
    private String archiveFlag; // the JVM flag that maps it, once made
    /** Mode: a fresh Muster started after the batch's pods exist, just before kube-scheduler (its first sync lists them). */
    private static final String FRESH_AFTER_PODS = "fresh-after-pods";
    /** Mode suffix: fresh-plain, start-plain start Muster without the class data archive. */
    private static final String PLAIN = "-plain";

    private RealLoopBench(Path repo, String version, int nodes, int pods, int gang, Path config, int schedulerQps) {
        this.repo = repo;
        this.config = config;
        this.schedulerQps = schedulerQps;
        this.version = version;
        this.nodes = nodes;
        this.pods = pods;
        this.gang = gang;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> defaults = new LinkedHashMap<>(Map.of("nodes", "1000", "pods", "2000", "gang", "0", "rounds", "3",
                "modes", "alone,fresh,warm", "repo", "..", "version", "0.1.0-SNAPSHOT", "config", "extender-config/scheduler-config-insecure.yaml", "scheduler-qps", "1000", "muster-jvm", ""));
        defaults.put("muster-args", "");
        defaults.put("warmup", "6");
        defaults.put("class-data-archive", "true");
        Map<String, String> a = BenchArgs.parse(defaults, args);
        Path repo = Path.of(a.get("repo")).toAbsolutePath().normalize();
        RealLoopBench b = new RealLoopBench(repo, a.get("version"), Integer.parseInt(a.get("nodes")), Integer.parseInt(a.get("pods")),
                Integer.parseInt(a.get("gang")), repo.resolve(a.get("config")), Integer.parseInt(a.get("scheduler-qps")));
        if (!a.get("muster-jvm").isBlank()) {
            b.musterJvm.addAll(List.of(a.get("muster-jvm").trim().split(";")));
        }
        if (!a.get("muster-args").isBlank()) {
            b.musterArgs.addAll(List.of(a.get("muster-args").trim().split(";")));
        }
        b.warmupBatches = Integer.parseInt(a.get("warmup"));
        b.classDataArchive = Boolean.parseBoolean(a.get("class-data-archive"));
        b.run(Integer.parseInt(a.get("rounds")), List.of(a.get("modes").split(",")));
    }

    record Result(String mode, double podsPerSecond, double seconds, double algorithmMs, double extenderFilterMs,
                  Map<String, Double> cpuSeconds, Map<String, Double> musterVerbMs) {}

    private void run(int rounds, List<String> modes) throws Exception {
        Path dir = Files.createTempDirectory("muster-realloop-");
        cp = ControlPlane.start(ControlPlane.Options.fromEnvironment(dir));
        try {
            admin = new Kube(cp.adminClient());
            install = MusterInstall.install(cp, repo.resolve("charts/muster"));
            if (classDataArchive) {
                archiveFlag = "-XX:SharedArchiveFile=" + classDataArchive(dir);
            }
            long t = System.nanoTime();
            parallel(nodes, i -> admin.node("node-" + i, "32", "128Gi", Map.of()));
            System.out.printf(Locale.ROOT, "%d nodes in %.1f s%n", nodes, (System.nanoTime() - t) / 1e9);
            MusterProcess warm = null;
            List<Result> results = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                for (String mode : modes) {
                    boolean plain = mode.endsWith(PLAIN); // a fresh Muster without the class data archive
                    if (mode.equals("start") || mode.equals("start" + PLAIN)) {
                        startOnly(mode + r, plain);
                        continue;
                    }
                    if ((mode.equals("warm") || mode.equals("idle")) && warm == null) {
                        warm = startMuster("warm", false);
                        for (int w = 0; w < warmupBatches; w++) {
                            measure("warm-up", warm, null); // batches to warm the JIT, not reported
                        }
                    }
                    boolean isFresh = mode.equals("fresh") || mode.equals("fresh" + PLAIN) || mode.equals(FRESH_AFTER_PODS);
                    MusterProcess[] fresh = new MusterProcess[1];
                    String name = mode + r;
                    Supplier<MusterProcess> startFresh = () -> fresh[0] = startMuster(name, plain);
                    if (isFresh && !mode.equals(FRESH_AFTER_PODS)) {
                        startFresh.get();
                    }
                    Result res = measure(mode, mode.equals("alone") ? null : isFresh ? fresh[0] : warm,
                            mode.equals(FRESH_AFTER_PODS) ? startFresh : null);
                    results.add(res);
                    print(res);
                    if (fresh[0] != null) {
                        fresh[0].close();
                    }
                }
            }
            if (warm != null) {
                warm.close();
            }
            System.out.println();
            System.out.println("| mode | pods/s | s | algorithm ms (mean) | in-tree Filter ms (mean) | CPU s: apiserver / etcd / scheduler / muster | muster verbs ms (mean) |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (Result r : results) {
                System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.1f | %.2f | %.2f | %.1f / %.1f / %.1f / %.1f | %s |", r.mode(), r.podsPerSecond(),
                        r.seconds(), r.algorithmMs(), r.extenderFilterMs(), r.cpuSeconds().getOrDefault("kube-apiserver", 0.0),
                        r.cpuSeconds().getOrDefault("etcd", 0.0), r.cpuSeconds().getOrDefault("kube-scheduler", 0.0),
                        r.cpuSeconds().getOrDefault("muster", 0.0), r.musterVerbMs()));
                // muster-sys (kernel share of muster's CPU) is in the per-run line above
            }
        } finally {
            cp.close();
        }
    }

    /**
     * The extender image's class data archive, made the way server/Dockerfile makes it: this JVM (the image's Java
     * release) dumps the classes of the repository's class list from the packaged jar.
     */
    private Path classDataArchive(Path dir) throws IOException, InterruptedException {
        Path list = repo.resolve("server/src/main/cds/classlist");
        Path archive = dir.resolve("muster.jsa");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:dump",
                "-XX:SharedClassListFile=" + list, "-XX:SharedArchiveFile=" + archive, "-jar",
                MusterProcess.jar(repo, "server", version).toString()).redirectErrorStream(true).redirectOutput(dir.resolve("cds-dump.log").toFile()).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("class data archive not made from " + list + ": see " + dir.resolve("cds-dump.log"));
        }
        return archive;
    }

    /**
     * A fresh Muster started and stopped without scheduling anything: its readiness after JVM start and the CPU it
     * spent until then, by thread group (the JIT's compiler threads, the sync, the servers).
     */
    private void startOnly(String name, boolean plain) throws IOException {
        MusterProcess m = startMuster(name, plain);
        try {
            Map<String, Double> cpu = cpu(m, null);
            cpu.keySet().removeIf(k -> !k.startsWith("muster") || cpu.get(k) < 0.05);
            System.out.printf(Locale.ROOT, "start    cpu at ready %s%n", cpu);
        } finally {
            m.close();
            musterHttp.remove(m);
        }
    }

    private MusterProcess startMuster(String name, boolean plain) {
        int http = ControlPlane.freePort();
        long t0 = System.nanoTime();
        List<String> jvm = new ArrayList<>(musterJvm);
        if (archiveFlag != null && !plain) {
            jvm.add(archiveFlag);
        }
        MusterProcess m = MusterProcess.start("extender-" + name, MusterProcess.jar(repo, "server", version),
                List.copyOf(jvm), java.util.stream.Stream.concat(java.util.stream.Stream.of("--kubeconfig=" + install.kubeconfigFor("extender"),
                        "--http-port=" + http, "--grpc-port=" + ControlPlane.freePort(), "--leader-elect=false",
                        "--insecure-unauthenticated-verbs"), musterArgs.stream()).toList(),
                cp.dataDir(), ControlPlane.freePort());
        System.out.printf(Locale.ROOT, "muster %s ready in %.2f s (JVM start to /readyz after the first full sync of %d nodes)%n", name,
                (System.nanoTime() - t0) / 1e9, nodes);
        musterHttp.put(m, http);
        return m;
    }

    /**
     * One batch: the pods created, then kube-scheduler started and timed. {@code startAfterPods}, when given, starts the
     * Muster of this run once the pods exist, just before kube-scheduler (as after a failover: its first sync lists them).
     */
    private Result measure(String mode, MusterProcess muster, Supplier<MusterProcess> startAfterPods) throws Exception {
        String ns = admin.namespace("bench-" + (++round));
        if (gang > 0) {
            for (int g = 0; g < pods / gang; g++) {
                admin.podGroup(ns, "g" + g, gang, "default", Map.of());
            }
        }
        boolean asked = (muster != null || startAfterPods != null) && !mode.equals("idle"); // idle: the warm Muster only watches (its informers' cost)
        if (gang > 0 && !asked) {
            // kube-scheduler alone is compared as on a cluster without Muster: the members carry no gang marker
            install.removeGangMarker();
            try {
                parallel(pods, i -> createPod(ns, i));
            } finally {
                install.restoreGangMarker();
            }
        } else {
            parallel(pods, i -> createPod(ns, i));
        }
        if (startAfterPods != null) {
            muster = startAfterPods.get();
        }
        Map<String, Double> before = cpu(muster, null);
        Map<String, Double> requestsBefore = apiserverRequests();
        // kube-scheduler's client defaults (50 QPS) would cap "alone" at ~50 Bindings/s, while Muster's binds are not
        // throttled: both modes get the same, higher client budget so the comparison is of scheduling, not throttling
        java.util.function.Consumer<Map<String, Object>> qps = cfg -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> cc = (Map<String, Object>) cfg.get("clientConnection");
            cc.put("qps", schedulerQps);
            cc.put("burst", schedulerQps);
        };
        String musterBefore = muster != null ? muster.metrics() : "";
        KubeScheduler s = KubeScheduler.start(cp, config, asked ? "http://127.0.0.1:" + musterHttp.get(muster) : null, qps);
        try {
            Map<String, Double> base = cpu(muster, s);
            long first = 0;
            long last;
            double scheduled;
            while (true) {
                scheduled = counter(s.metrics(cp.adminToken()), "scheduler_schedule_attempts_total", "result=\"scheduled\"");
                long now = System.nanoTime();
                if (first == 0 && scheduled > 0) {
                    first = now;
                }
                if (scheduled >= pods) {
                    last = now;
                    break;
                }
                if (first != 0 && now - first > 600_000_000_000L) {
                    throw new IllegalStateException(mode + ": only " + scheduled + " of " + pods + " scheduled after 10 minutes");
                }
                Thread.sleep(100);
            }
            Map<String, Double> after = cpu(muster, s);
            String m = s.metrics(cp.adminToken());
            double algorithm = mean(m, "scheduler_scheduling_algorithm_duration_seconds", "") * 1000;
            double extender = mean(m, "scheduler_framework_extension_point_duration_seconds", "extension_point=\"Filter\"") * 1000;
            System.out.println(mode + "    kube-scheduler plugins, mean µs per call (sampled): " + pluginMeans(m));
            Map<String, Double> cpu = new LinkedHashMap<>();
            for (String k : after.keySet()) {
                double spent = after.get(k) - base.getOrDefault(k, before.getOrDefault(k, 0.0));
                if (!k.startsWith("muster/") || spent >= 0.05) {
                    cpu.put(k, Math.round(spent * 100) / 100.0);
                }
            }
            Map<String, Double> verbs = new LinkedHashMap<>();
            if (asked) {
                String mm = muster.metrics();
                for (String verb : List.of("filter", "prioritize", "bind")) {
                    verbs.put(verb, Math.round(mean(mm, "muster_extender_request_seconds", "verb=\"" + verb + "\"") * 1e5) / 100.0);
                }
                // the scheduler's lock: how often a caller found it held, and the mean wait of those callers
                double contended = plain(mm, "muster_scheduler_lock_contended_total", "") - plain(musterBefore, "muster_scheduler_lock_contended_total", "");
                double waited = plain(mm, "muster_scheduler_lock_wait_seconds_total", "") - plain(musterBefore, "muster_scheduler_lock_wait_seconds_total", "");
                verbs.put("lock-waits", contended);
                verbs.put("lock-wait-mean-ms", contended == 0 ? 0 : Math.round(waited / contended * 1e5) / 100.0);
            }
            double seconds = (last - first) / 1e9;
            Map<String, Double> requests = apiserverRequests();
            StringBuilder added = new StringBuilder();
            requests.forEach((k, v) -> {
                double n = v - requestsBefore.getOrDefault(k, 0.0);
                if (n >= 20) {
                    added.append(added.isEmpty() ? "" : ", ").append(k).append('=').append(Math.round(n));
                }
            });
            System.out.printf(Locale.ROOT, "%-8s API server requests while scheduling: %s%n", mode, added);
            return new Result(mode, pods / Math.max(seconds, 1e-3), seconds, algorithm, extender, cpu, verbs);
        } finally {
            s.close();
            deleteAll(ns);
        }
    }

    private void createPod(String ns, int i) {
        Map<String, String> ann = gang > 0 ? Map.of("scheduling.k8s.io/group-name", "g" + (i / gang)) : Map.of();
        V1Pod pod = new V1Pod().metadata(new V1ObjectMeta().name("p" + i).namespace(ns).annotations(ann))
                .spec(new V1PodSpec().schedulerName("muster").terminationGracePeriodSeconds(0L).overhead(null)
                        .containers(List.of(new V1Container().name("c").image("x")
                                .resources(new V1ResourceRequirements().requests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("128Mi")))))));
        Kube.call("create pod", () -> admin.core().createNamespacedPod(ns, pod).execute());
    }

    private void deleteAll(String ns) throws Exception {
        Kube.call("delete pods", () -> admin.core().deleteCollectionNamespacedPod(ns).gracePeriodSeconds(0).execute());
        while (!admin.pods(ns).isEmpty()) {
            Thread.sleep(500);
        }
    }

    /**
     * The API server's {@code apiserver_request_total} by verb, resource and subresource (codes and scopes added up), and
     * {@code apiserver_watch_events_total} by kind: what each mode asks of the API server.
     */
    private Map<String, Double> apiserverRequests() {
        Http.Answer a = Http.get(cp.url() + "/metrics", cp.adminToken());
        Map<String, Double> out = new java.util.TreeMap<>();
        Matcher m = Pattern.compile("^apiserver_request_total\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(a.body());
        while (m.find()) {
            String labels = m.group(1);
            String key = label(labels, "verb") + " " + label(labels, "resource") + (label(labels, "subresource").isEmpty() ? "" : "/" + label(labels, "subresource"));
            out.merge(key, Double.parseDouble(m.group(2)), Double::sum);
        }
        Matcher w = Pattern.compile("^apiserver_watch_events_total\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(a.body());
        while (w.find()) {
            out.merge("watch-events " + label(w.group(1), "resource") + label(w.group(1), "kind"), Double.parseDouble(w.group(2)), Double::sum);
        }
        return out;
    }

    private static String label(String labels, String name) {
        Matcher m = Pattern.compile("(?:^|,)" + name + "=\"([^\"]*)\"").matcher(labels);
        return m.find() ? m.group(1) : "";
    }

    /** CPU seconds (user + system) of the control plane, kube-scheduler and Muster processes so far. */
    private Map<String, Double> cpu(MusterProcess muster, KubeScheduler s) throws IOException {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Map.Entry<String, Long> e : cp.pids().entrySet()) {
            out.put(e.getKey(), ProcCpu.total(e.getValue()));
        }
        if (s != null) {
            out.put("kube-scheduler", ProcCpu.total(s.pid()));
        }
        if (muster != null) {
            out.put("muster", ProcCpu.total(muster.pid()));
            out.put("muster-sys", ProcCpu.system(muster.pid()));
            ProcCpu.byThread(muster.pid()).forEach((group, seconds) -> out.put("muster/" + group, seconds));
        }
        return out;
    }

    /** Sum of a Prometheus counter's samples whose labels contain {@code labelPart}. */
    static double counter(String text, String name, String labelPart) {
        double sum = 0;
        Pattern p = Pattern.compile("^" + Pattern.quote(name) + "\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE);
        Matcher m = p.matcher(text);
        while (m.find()) {
            if (m.group(1).contains(labelPart)) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        return sum;
    }

    private static final Pattern PLUGIN_SAMPLE = Pattern.compile(
            "^scheduler_plugin_execution_duration_seconds_(sum|count)\\{([^}]*)\\} ([0-9.eE+-]+)$", Pattern.MULTILINE);
    private static final Pattern EXTENSION_POINT_LABEL = Pattern.compile("extension_point=\"([A-Za-z]+)\"");
    private static final Pattern PLUGIN_LABEL = Pattern.compile("plugin=\"([A-Za-z]+)\"");

    /** kube-scheduler's per-plugin PreFilter and Filter means (its plugin histograms sample about 10% of cycles), in µs. */
    static Map<String, Long> pluginMeans(String text) {
        Map<String, double[]> acc = new java.util.TreeMap<>();
        Matcher mm = PLUGIN_SAMPLE.matcher(text);
        while (mm.find()) {
            Matcher point = EXTENSION_POINT_LABEL.matcher(mm.group(2));
            Matcher plugin = PLUGIN_LABEL.matcher(mm.group(2));
            if (point.find() && plugin.find() && (point.group(1).equals("Filter") || point.group(1).equals("PreFilter"))) {
                double[] a = acc.computeIfAbsent(point.group(1) + "/" + plugin.group(1), k -> new double[2]);
                a[mm.group(1).equals("sum") ? 0 : 1] += Double.parseDouble(mm.group(3));
            }
        }
        Map<String, Long> out = new LinkedHashMap<>();
        acc.forEach((k, a) -> {
            if (a[1] > 0) {
                out.put(k, Math.round(a[0] / a[1] * 1e6));
            }
        });
        return out;
    }

    /** Mean of a histogram (sum / count) over the series whose labels contain {@code labelPart}. */
    static double mean(String text, String histogram, String labelPart) {
        double sum = counter(text, histogram + "_sum", labelPart) + plain(text, histogram + "_sum", labelPart);
        double count = counter(text, histogram + "_count", labelPart) + plain(text, histogram + "_count", labelPart);
        return count == 0 ? Double.NaN : sum / count;
    }

    private static double plain(String text, String name, String labelPart) {
        if (!labelPart.isEmpty()) {
            return 0;
        }
        Matcher m = Pattern.compile("^" + Pattern.quote(name) + " ([0-9.eE+-]+)$", Pattern.MULTILINE).matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static void print(Result r) {
        System.out.printf(Locale.ROOT, "%-8s %7.0f pods/s  %6.1f s  algorithm %.2f ms  cpu %s  muster verbs %s%n", r.mode(), r.podsPerSecond(),
                r.seconds(), r.algorithmMs(), r.cpuSeconds(), r.musterVerbMs());
    }

    interface IntTask {
        void run(int i) throws Exception;
    }

    private static void parallel(int n, IntTask task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int k = i;
                fs.add(pool.submit(() -> {
                    task.run(k);
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        } finally {
            pool.shutdown();
        }
    }
}
