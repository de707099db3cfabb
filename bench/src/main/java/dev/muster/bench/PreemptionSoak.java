package dev.muster.bench;

import dev.muster.e2e.ControlPlane;
import dev.muster.e2e.HollowNode;
import dev.muster.e2e.Kube;
import dev.muster.e2e.KubeControllerManager;
import dev.muster.e2e.MusterInstall;
import dev.muster.e2e.MusterStack;
import dev.muster.e2e.Workloads;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Preemption and reclaim under random demand, on a real control plane: kube-apiserver, an unmodified
 * kube-controller-manager (Jobs, Deployments, disruption budgets, garbage collection), {@code --nodes} hollow kubelets
 * of 1 cpu in two node pools, the chart's objects and ServiceAccount tokens, and Muster's extender, controller and
 * kube-scheduler as the end-to-end tests run them ({@link MusterStack}). {@link SoakWorkloads} makes and stops random
 * gangs and single pods over three queues and three priorities; {@link SoakSampler} checks every 250 ms that no eviction
 * is wasted, no running gang is left below its minMember, and — once demand stops changing — nothing is evicted.
 *
 * <p>Phases: <b>churn</b> (a workload made or stopped every 2–6 s) for the duration less settle and steady; <b>settle</b>
 * (demand no longer changes; the last decisions it caused may still evict); <b>steady</b> (nothing may be evicted). The
 * extender runs from a copy of its jars taken at the start, so the repository may be rebuilt meanwhile.
 *
 * <pre>
 * MUSTER_K8S_BINARIES=/path/to/k8s/bin mvn -B -q -pl bench -am verify -DskipTests -Pbench \
 *   -Dbench.main=dev.muster.bench.PreemptionSoak -Dbench.args="--duration 20m"
 * </pre>
 * {@code --duration 4m --settle 30s --steady 1m} is a short run; {@code --seed}, {@code --nodes} (even, default 6),
 * {@code --max-live} (workloads at once, default 24) and {@code --victim-min-runtime} (the extender's flag, default 20s:
 * short enough that gangs made during the churn become victims) may be given too. Exits 1 when an invariant broke.
 */
public final class PreemptionSoak {
    private static final long SAMPLE_MILLIS = 250;

    public static void main(String[] args) throws Exception {
        Map<String, String> defaults = new LinkedHashMap<>(Map.of("duration", "20m", "settle", "2m", "steady", "5m", "seed", "1",
                "nodes", "6", "max-live", "24", "victim-min-runtime", "20s", "repo", "..", "version", "0.1.0-SNAPSHOT"));
        Map<String, String> a = BenchArgs.parse(defaults, args);
        Duration duration = duration(a.get("duration"));
        Duration settle = duration(a.get("settle"));
        Duration steady = duration(a.get("steady"));
        Duration churn = duration.minus(settle).minus(steady);
        if (churn.isNegative() || churn.isZero()) {
            throw new IllegalArgumentException("--duration " + a.get("duration") + " must be longer than --settle plus --steady");
        }
        int nodes = Integer.parseInt(a.get("nodes"));
        if (nodes < 2 || nodes % 2 != 0) {
            throw new IllegalArgumentException("--nodes must be even and at least 2 (two pools), got " + nodes);
        }
        Path repo = Path.of(a.get("repo")).toAbsolutePath().normalize();
        boolean held = run(repo, a.get("version"), nodes, Long.parseLong(a.get("seed")), Integer.parseInt(a.get("max-live")),
                a.get("victim-min-runtime"), churn, settle, steady);
        System.exit(held ? 0 : 1);
    }

    /** {@code 20m}, {@code 30s}, {@code 1h} as a Duration. */
    private static Duration duration(String s) {
        try {
            return Duration.parse("PT" + s.toUpperCase(Locale.ROOT));
        } catch (java.time.format.DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration like 20m or 30s: " + s, e);
        }
    }

    private static boolean run(Path repo, String version, int nodeCount, long seed, int maxLive, String victimMinRuntime,
                               Duration churn, Duration settle, Duration steady) throws Exception {
        Path dir = Files.createTempDirectory("muster-soak-");
        Path staged = stage(repo, version, dir.resolve("repo"));
        ControlPlane cp = ControlPlane.start(ControlPlane.Options.fromEnvironment(dir));
        List<HollowNode> nodes = new ArrayList<>();
        KubeControllerManager kcm = null;
        MusterStack muster = null;
        ScheduledExecutorService sampling = Executors.newSingleThreadScheduledExecutor();
        try {
            Kube admin = new Kube(cp.adminClient());
            Workloads workloads = new Workloads(cp.adminClient());
            MusterInstall install = MusterInstall.install(cp, repo.resolve("charts/muster"));
            kcm = KubeControllerManager.start(cp, List.of());
            for (int i = 0; i < nodeCount; i++) {
                String pool = SoakWorkloads.POOLS.get(i % SoakWorkloads.POOLS.size());
                nodes.add(HollowNode.start(cp, "soak-" + pool + "-" + i, Map.of(SoakWorkloads.POOL, pool)));
            }
            for (HollowNode n : nodes) {
                n.awaitReady(admin, Duration.ofSeconds(120));
            }
            muster = MusterStack.start(staged, version, cp, install, List.of("--victim-min-runtime=" + victimMinRuntime), dir);
            String ns = admin.namespace("soak");
            SoakWorkloads demand = new SoakWorkloads(admin, workloads, ns, seed);
            demand.prepare();
            long t0 = System.nanoTime();
            SoakSampler sampler = new SoakSampler(admin, muster.extender(), ns, demand, t0);
            System.out.printf(Locale.ROOT, "soak: %d hollow nodes of 1 cpu in pools %s, seed %d, churn %s, settle %s, steady %s; "
                    + "logs in %s%n", nodeCount, SoakWorkloads.POOLS, seed, churn, settle, steady, dir);
            sampler.phase("churn");
            sampling.scheduleAtFixedRate(sampler::sample, SAMPLE_MILLIS, SAMPLE_MILLIS, TimeUnit.MILLISECONDS);
            Random pace = new Random(seed);
            long churnEnd = t0 + churn.toNanos();
            while (System.nanoTime() < churnEnd) {
                demand.step(maxLive);
                long pause = 2_000 + pace.nextInt(4_000);
                Thread.sleep(Math.max(0, Math.min(pause, (churnEnd - System.nanoTime()) / 1_000_000)));
            }
            sampler.phase("settle");
            Thread.sleep(settle.toMillis());
            sampler.phase("steady");
            Thread.sleep(steady.toMillis());
            sampling.shutdown();
            sampling.awaitTermination(30, TimeUnit.SECONDS);
            List<SoakSampler.Phase> phases = sampler.finish();
            boolean held = print(phases, admin, ns);
            if (sampler.errors() > 0) {
                System.out.printf("samples that could not read the cluster: %d (last: %s)%n", sampler.errors(), sampler.lastError());
            }
            return held;
        } finally {
            sampling.shutdownNow();
            if (muster != null) {
                muster.close();
            }
            nodes.forEach(HollowNode::close);
            if (kcm != null) {
                kcm.close();
            }
            cp.close();
        }
    }

    /** Prints the table; whether every invariant held. */
    private static boolean print(List<SoakSampler.Phase> phases, Kube admin, String ns) {
        System.out.println();
        System.out.println("| phase | length | workloads made / stopped | samples (longest gap) | preemption decisions (of which evicted nothing) | victims evicted "
                + "| wasted evictions | running gangs below minMember > 2 s (longest dip) |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
        boolean held = true;
        for (SoakSampler.Phase p : phases) {
            System.out.printf(Locale.ROOT, "| %s | %.0f s | %d / %d | %d (%.2f s) | %.0f (%.0f) | %.0f | %.0f | %d (%.1f s%s)%s |%n", p.name,
                    (p.endNanos - p.startNanos) / 1e9, p.made, p.stopped, p.samples, p.maxGapNanos / 1e9, p.decisions, p.unsent, p.evicted,
                    p.wasted, p.partial.size(), p.longestDipNanos / 1e9, p.longestDip.isEmpty() ? "" : ", " + p.longestDip, p.partial.isEmpty() ? "" : ": " + String.join("; ", p.partial));
            held &= p.wasted == 0 && p.partial.isEmpty() && !(p.name.equals("steady") && p.evicted > 0);
        }
        long bound = admin.pods(ns).stream().filter(p -> p.getSpec().getNodeName() != null && p.getMetadata().getDeletionTimestamp() == null).count();
        long waiting = admin.pods(ns).stream().filter(p -> p.getSpec().getNodeName() == null).count();
        System.out.printf("at the end: %d pods bound, %d waiting; invariants (no wasted eviction, no partial gang, nothing evicted "
                + "while demand is steady): %s%n", bound, waiting, held ? "held" : "BROKEN");
        return held;
    }

    /**
     * A copy of the extender's and controller's jars (and their lib/) under {@code to}, beside a link to the
     * repository's extender-config: what {@link MusterStack} starts from, unchanged by a rebuild while the soak runs.
     */
    private static Path stage(Path repo, String version, Path to) throws IOException {
        for (String module : List.of("server", "controller")) {
            Path target = repo.resolve(module).resolve("target");
            Path jar = dev.muster.e2e.MusterProcess.jar(repo, module, version);
            Path out = Files.createDirectories(to.resolve(module).resolve("target").resolve("lib"));
            Files.copy(jar, out.getParent().resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            try (Stream<Path> libs = Files.list(target.resolve("lib"))) {
                for (Path lib : libs.toList()) {
                    Files.copy(lib, out.resolve(lib.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        Files.createSymbolicLink(to.resolve("extender-config"), repo.resolve("extender-config"));
        return to;
    }
}
