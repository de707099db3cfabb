package dev.muster.bench;

import dev.muster.e2e.ChartTls;
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
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * kube-scheduler's throughput alone and with Muster in the loop, on a real control plane (the e2e fixture): N
 * fake nodes, P pods (100m cpu, 128Mi) created before the scheduler starts, then a fresh kube-scheduler; runs
 * alternate "alone" (the project's profile without extender), "fresh" (Muster started just before the scheduler,
 * as after a failover) and "warm" (one Muster kept across runs, after a warm-up batch). Reports pods/s (first to
 * last scheduled, from kube-scheduler's own counter, polled every 100 ms), the seconds from kube-scheduler's start
 * (its process launched) to the last scheduled, kube-scheduler's algorithm and extension-point latencies,
 * Muster's per-verb latency, and CPU seconds of every process during the run.
 *
 * <pre>
 * MUSTER_K8S_BINARIES=/path/to/k8s/bin mvn -q -pl bench -am verify -DskipTests -Pbench \
 *   -Dbench.main=dev.muster.bench.RealLoopBench -Dbench.args="--nodes 1000 --pods 2000 --gang 0 --rounds 3"
 * </pre>
 * {@code --config FILE} (relative to the repository) replaces extender-config/scheduler-config-insecure.yaml (with
 * {@code --https true}: extender-config/scheduler-config.yaml); {@code --https true} kube-scheduler calls the extender
 * over the chart's mutual TLS, with the certificates Helm wrote into the chart's Secrets (batch modes); {@code --scheduler-qps}
 * (default 1000) is kube-scheduler's client budget in every mode, {@code --modes} a subset of alone,fresh,warm,idle,start,fresh-after-pods,burst-alone,burst (fresh-after-pods: the fresh
 * Muster is started once the batch's pods exist, just before kube-scheduler, so its first sync lists them; start: a fresh Muster started and stopped, its ready time and CPU at readiness; idle: kube-scheduler alone while the warm Muster
 * watches the same pods without being asked anything — what its informers cost),
 * {@code --muster-jvm "FLAG;FLAG"} extra JVM flags for Muster, separated by semicolons (e.g. {@code -XX:StartFlightRecording=filename=/tmp/m.jfr};
 * {@code -XX:CompilationMode=default} for the JVM's tiered C1 + C2 instead of the chart's C1 alone),
 * {@code --bound N} pods created bound before the rounds (a restart's first list holds them; e.g.
 * {@code --nodes 5000 --bound 100000 --modes start}; {@code --bound 100000,200000} runs the rounds at each step),
 * {@code --queue-order true} kube-scheduler logs each attempt ({@code -v=3}) and each gang batch prints when its gangs
 * were whole in kube-scheduler's queue ({@link QueueOrder}; the log costs kube-scheduler CPU, so timings of such a run are
 * not compared), {@code --histogram true} the heap and its largest classes of each {@code start} extender at ready (jcmd),
 * {@code --baseline-jar PATH} another build's server jar (its lib/ beside it) that modes ending in {@code -baseline}
 * start instead of this build's (e.g. {@code --modes start,start-baseline}: this build, then the other, alternated),
 * {@code --baseline-jvm "FLAG;FLAG"} the JVM flags modes ending in {@code -baseline} start with instead of the chart's
 * (the image's heap percentages of a 2 GiB limit, Serial GC, C1 alone), e.g.
 * {@code "-XX:MaxRAM=2g;-XX:MaxRAMPercentage=75;-XX:CompilationMode=quick-only;-XX:CompileThresholdScaling=0.1"} for the JVM's own choice
 * of collector; without {@code --baseline-jar} those modes start this build,
 * mode {@code restart-gang}: a gang of 8 created just after a restarted extender is ready, creation → all bound
 * ({@link RestartGang}), modes {@code burst-alone} and {@code burst}: {@code --pods} single pods created by 8 threads into a
 * running, settled kube-scheduler, alone or with the warm Muster (after its warm-up), creation → bound p50/p90/p99/max,
 * the pods over 1 s, kube-scheduler's attempts by result, Muster's filter errors and waits for unseen pods, and a summary
 * with p99(burst)/p99(burst-alone) per round ({@link BurstRound}; e.g.
 * {@code --nodes 1000 --pods 1000 --gang 0 --rounds 3 --modes burst-alone,burst}), {@code --muster-args "FLAG;FLAG"} extra Muster flags (e.g. {@code --pick-node=false}), {@code --warmup N}
 * batches the warm Muster schedules before it is measured (default 6). A fresh Muster maps the class data its image
 * maps; a mode's suffix picks another ({@link MusterLauncher.ClassData}): {@code -plain} none, {@code -unlinked} the
 * class list's archive without ahead-of-time linking, {@code -trained} an ahead-of-time cache recorded by a training
 * run (a start and one batch) before the rounds — e.g. {@code --modes start,start-plain,start-trained}. Muster's CPU is
 * also reported per thread group ({@code muster/CN CompilerThre}: the JIT's C1 and C2 threads,
 * {@code muster/ForkJoinPool-N-}: the virtual threads that answer the verbs and bind), and the API server's requests
 * while scheduling.
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
    private SchedulerBatch batches;
    /** Batches print kube-scheduler's queue order ({@link QueueOrder}; it then logs at -v=3). */
    private boolean queueOrder;
    /** kube-scheduler calls the extender over the chart's mutual TLS (batches only). */
    private boolean https;
    private MusterLauncher launcher;

    private final Path config;

    private final int schedulerQps;
    private final List<String> musterJvm = new ArrayList<>();
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
    /**
     * Pods created already bound (spec.nodeName, round-robin over the nodes) before the rounds: what a restart lists.
     * Several steps ({@code --bound 100000,200000}) run the rounds at each, creating only the pods the step adds.
     */
    private List<Integer> bound = List.of(0);
    /** Print a started extender's heap and its largest classes ({@link MusterLauncher#heap}) after each start mode. */
    private boolean histogram;
    private Path baselineJar;
    private List<String> baselineJvm; // null: the chart's
    /** Mode: a fresh Muster started after the batch's pods exist, just before kube-scheduler (its first sync lists them). */
    private static final String FRESH_AFTER_PODS = "fresh-after-pods";

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
                "modes", "alone,fresh,warm", "repo", "..", "version", "0.1.0-SNAPSHOT", "config", "", "scheduler-qps", "1000", "muster-jvm", ""));
        defaults.put("muster-args", "");
        defaults.put("warmup", "6");
        defaults.put("bound", "0");
        defaults.put("histogram", "false");
        defaults.put("baseline-jar", "");
        defaults.put("baseline-jvm", "");
        defaults.put("queue-order", "false");
        defaults.put("https", "false");
        Map<String, String> a = BenchArgs.parse(defaults, args);
        Path repo = Path.of(a.get("repo")).toAbsolutePath().normalize();
        boolean https = Boolean.parseBoolean(a.get("https"));
        String config = !a.get("config").isBlank() ? a.get("config")
                : https ? "extender-config/scheduler-config.yaml" : "extender-config/scheduler-config-insecure.yaml";
        RealLoopBench b = new RealLoopBench(repo, a.get("version"), Integer.parseInt(a.get("nodes")), Integer.parseInt(a.get("pods")),
                Integer.parseInt(a.get("gang")), repo.resolve(config), Integer.parseInt(a.get("scheduler-qps")));
        b.https = https;
        if (!a.get("muster-jvm").isBlank()) {
            b.musterJvm.addAll(List.of(a.get("muster-jvm").trim().split(";")));
        }
        if (!a.get("muster-args").isBlank()) {
            b.musterArgs.addAll(List.of(a.get("muster-args").trim().split(";")));
        }
        b.warmupBatches = Integer.parseInt(a.get("warmup"));
        b.bound = java.util.Arrays.stream(a.get("bound").split(",")).map(String::trim).map(Integer::parseInt).toList();
        b.histogram = Boolean.parseBoolean(a.get("histogram"));
        b.queueOrder = Boolean.parseBoolean(a.get("queue-order"));
        if (!a.get("baseline-jar").isBlank()) {
            b.baselineJar = Path.of(a.get("baseline-jar")).toAbsolutePath();
        }
        if (!a.get("baseline-jvm").isBlank()) {
            b.baselineJvm = List.of(a.get("baseline-jvm").trim().split(";"));
        }
        b.run(Integer.parseInt(a.get("rounds")), List.of(a.get("modes").split(",")));
    }

    private void run(int rounds, List<String> modes) throws Exception {
        if (https && modes.stream().anyMatch(m -> m.startsWith("burst") || m.startsWith("restart-gang"))) {
            throw new IllegalArgumentException("--https true measures batches (alone, warm, fresh, fresh-after-pods, idle, start), not " + modes);
        }
        Path dir = Files.createTempDirectory("muster-realloop-");
        cp = ControlPlane.start(ControlPlane.Options.fromEnvironment(dir));
        try {
            admin = new Kube(cp.adminClient());
            install = MusterInstall.install(cp, repo.resolve("charts/muster"));
            launcher = new MusterLauncher(repo, version, dir, cp, install, nodes);
            launcher.jvm.addAll(musterJvm);
            launcher.args.addAll(musterArgs);
            launcher.baselineJar = baselineJar;
            launcher.baselineJvm = baselineJvm;
            Consumer<Map<String, Object>> schedulerConfig = this::schedulerQps;
            if (https) { // the chart's Secrets, as Helm wrote them: the extender's files and kube-scheduler's client files
                ChartTls chart = new ChartTls(cp, admin, install, repo);
                launcher.https(chart.secretFiles("muster-extender-tls", dir.resolve("extender-tls")), chart.extenderFlag("--tls-client-roles="));
                schedulerConfig = schedulerConfig.andThen(ChartTls.clientFiles(chart.secretFiles("muster-scheduler-client-tls", dir.resolve("scheduler-tls"))));
            }
            batches = new SchedulerBatch(cp, admin, install, launcher, config, schedulerConfig, pods, gang, this::createPod, queueOrder);
            long t = System.nanoTime();
            parallel(nodes, i -> admin.node("node-" + i, "32", "128Gi", Map.of()));
            System.out.printf(Locale.ROOT, "%d nodes in %.1f s%n", nodes, (System.nanoTime() - t) / 1e9);
            int created = 0;
            String boundNs = null;
            for (int step : bound) {
                if (step > created) {
                    if (boundNs == null) {
                        boundNs = admin.namespace("bound");
                    }
                    String ns = boundNs;
                    int from = created;
                    t = System.nanoTime();
                    parallel(step - from, i -> createPod(ns, "b" + (from + i), "node-" + ((from + i) % nodes)));
                    System.out.printf(Locale.ROOT, "%d bound pods (%d new) in %.1f s%n", step, step - from, (System.nanoTime() - t) / 1e9);
                    created = step;
                }
                rounds(rounds, modes, created);
            }
        } finally {
            if (restartGang != null) {
                restartGang.close();
            }
            cp.close();
        }
    }

    private RestartGang restartGang;
    private BurstRound burst;

    /** {@code rounds} rounds of {@code modes}, with {@code boundPods} bound pods in the cluster. */
    private void rounds(int rounds, List<String> modes, int boundPods) throws Exception {
        if (modes.stream().anyMatch(m -> MusterLauncher.ClassData.of(m) == MusterLauncher.ClassData.TRAINED)) {
            launcher.train(m -> {
                try {
                    batches.measure("training", m, null); // the training run's workload: one batch, not reported
                } catch (Exception e) {
                    throw new IllegalStateException("the training batch failed", e);
                }
            });
        }
        MusterProcess warm = null;
        List<SchedulerBatch.Result> results = new ArrayList<>();
        Map<String, List<MusterLauncher.Start>> starts = new LinkedHashMap<>();
        Map<String, List<RestartGang.Result>> gangs = new LinkedHashMap<>();
        List<BurstRound.Result> bursts = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (String mode : modes) {
                boolean baseline = mode.endsWith(MusterLauncher.BASELINE);
                MusterLauncher.ClassData classData = MusterLauncher.ClassData.of(MusterLauncher.withoutBaseline(mode));
                String base = MusterLauncher.ClassData.base(MusterLauncher.withoutBaseline(mode));
                // a start that fails (e.g. a heap too small for the pods listed) is reported, and the rounds go on
                if (base.equals("start")) {
                    try {
                        starts.computeIfAbsent(mode, k -> new ArrayList<>()).add(launcher.startOnly(mode + r, classData, baseline, histogram));
                    } catch (RuntimeException e) {
                        System.out.println(mode + r + " failed: " + e);
                    }
                    continue;
                }
                if (base.equals(RestartGang.MODE)) {
                    if (restartGang == null) {
                        restartGang = new RestartGang(cp, admin, launcher, config, schedulerQps);
                        restartGang.round("restart-gang-warmup", classData, baseline); // kube-scheduler's first list; not reported
                    }
                    try {
                        gangs.computeIfAbsent(mode, k -> new ArrayList<>()).add(restartGang.round(mode + r, classData, baseline));
                    } catch (RuntimeException e) {
                        System.out.println(mode + r + " failed: " + e);
                    }
                    continue;
                }
                if ((mode.equals("warm") || mode.equals("idle") || mode.equals(BurstRound.MUSTER)) && warm == null) {
                    warm = launcher.start("warm", MusterLauncher.ClassData.IMAGE);
                    for (int w = 0; w < warmupBatches; w++) {
                        batches.measure("warm-up", warm, null); // batches to warm the JIT, not reported
                    }
                }
                if (mode.equals(BurstRound.ALONE) || mode.equals(BurstRound.MUSTER)) {
                    if (burst == null) {
                        burst = new BurstRound(cp, admin, config, this::schedulerQps, (ns, i) -> createPod(ns, "p" + i, null));
                    }
                    MusterProcess m = mode.equals(BurstRound.MUSTER) ? warm : null;
                    try {
                        bursts.add(burst.round(mode + r, mode, r, pods, m, m == null ? null : launcher.url(m)));
                    } catch (RuntimeException e) {
                        System.out.println(mode + r + " failed: " + e); // reported; the rounds go on
                    }
                    continue;
                }
                boolean isFresh = base.equals("fresh") || base.equals(FRESH_AFTER_PODS);
                MusterProcess[] fresh = new MusterProcess[1];
                String name = mode + r;
                Supplier<MusterProcess> startFresh = () -> fresh[0] = launcher.start(name, classData, baseline, ControlPlane.freePort());
                if (isFresh && !base.equals(FRESH_AFTER_PODS)) {
                    startFresh.get();
                }
                SchedulerBatch.Result res = batches.measure(mode, mode.equals("alone") ? null : isFresh ? fresh[0] : warm,
                        base.equals(FRESH_AFTER_PODS) ? startFresh : null);
                results.add(res);
                SchedulerBatch.print(res);
                if (fresh[0] != null) {
                    launcher.stop(fresh[0]);
                }
            }
        }
        if (warm != null) {
            launcher.stop(warm);
        }
        System.out.println();
        System.out.printf(Locale.ROOT, "with %d bound pods:%n", boundPods);
        gangs.forEach((mode, list) -> {
            System.out.println(mode + ":");
            list.forEach(g -> System.out.println("  " + g));
        });
        starts.forEach((mode, list) -> {
            System.out.println(mode + ":");
            list.forEach(st -> System.out.println("  " + st));
        });
        BurstRound.summary(bursts);
        if (results.isEmpty()) {
            return;
        }
        System.out.println("| mode | pods/s | s | from kube-scheduler's start, s | algorithm ms (mean) | in-tree Filter ms (mean) | CPU s: apiserver / etcd / scheduler / muster | muster verbs ms (mean) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (SchedulerBatch.Result r : results) {
            System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.1f | %.1f | %.2f | %.2f | %.1f / %.1f / %.1f / %.1f | %s |", r.mode(), r.podsPerSecond(),
                    r.seconds(), r.fromStartSeconds(), r.algorithmMs(), r.extenderFilterMs(), r.cpuSeconds().getOrDefault("kube-apiserver", 0.0),
                    r.cpuSeconds().getOrDefault("etcd", 0.0), r.cpuSeconds().getOrDefault("kube-scheduler", 0.0),
                    r.cpuSeconds().getOrDefault("muster", 0.0), r.musterVerbMs()));
            // muster-sys (kernel share of muster's CPU) is in the per-run line above
        }
    }

    /** kube-scheduler's client budget ({@code --scheduler-qps}) set in its configuration. */
    private void schedulerQps(Map<String, Object> cfg) {
        @SuppressWarnings("unchecked")
        Map<String, Object> cc = (Map<String, Object>) cfg.get("clientConnection");
        cc.put("qps", schedulerQps);
        cc.put("burst", schedulerQps);
    }

    private void createPod(String ns, int i) {
        Map<String, String> ann = gang > 0 ? Map.of("scheduling.k8s.io/group-name", "g" + (i / gang)) : Map.of();
        createPod(ns, "p" + i, null, ann);
    }

    private void createPod(String ns, String name, String nodeName) {
        createPod(ns, name, nodeName, Map.of());
    }

    private void createPod(String ns, String name, String nodeName, Map<String, String> ann) {
        V1Pod pod = new V1Pod().metadata(new V1ObjectMeta().name(name).namespace(ns).annotations(ann))
                .spec(new V1PodSpec().schedulerName("muster").nodeName(nodeName).terminationGracePeriodSeconds(0L).overhead(null)
                        .containers(List.of(new V1Container().name("c").image("x")
                                .resources(new V1ResourceRequirements().requests(Map.of("cpu", new Quantity("100m"), "memory", new Quantity("128Mi")))))));
        Kube.call("create pod", () -> admin.core().createNamespacedPod(ns, pod).execute());
    }

    private void deleteAll(String ns) throws Exception {
        deleteAll(admin, ns);
    }

    /** Deletes every pod of {@code ns} now and waits until they are gone. */
    static void deleteAll(Kube admin, String ns) throws Exception {
        Kube.call("delete pods", () -> admin.core().deleteCollectionNamespacedPod(ns).gracePeriodSeconds(0).execute());
        while (!admin.pods(ns).isEmpty()) {
            Thread.sleep(500);
        }
    }

    interface IntTask {
        void run(int i) throws Exception;
    }

    /** Runs {@code task} for 0..n-1 on 8 threads; returns when all have, rethrowing the first failure. */
    static void parallel(int n, IntTask task) throws Exception {
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
