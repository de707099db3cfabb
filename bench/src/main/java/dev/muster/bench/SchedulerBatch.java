package dev.muster.bench;

import dev.muster.e2e.ControlPlane;
import dev.muster.e2e.Http;
import dev.muster.e2e.Kube;
import dev.muster.e2e.KubeScheduler;
import dev.muster.e2e.MusterInstall;
import dev.muster.e2e.MusterProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One batch of {@link RealLoopBench}: its pods created (pending, {@code p0} … {@code p<pods-1>}; with {@code gang}, pod
 * {@code i} in gang {@code i / gang}), then a fresh kube-scheduler started, alone or with Muster, and timed from its
 * process start and from its first to its last pod scheduled (its own counter, polled every 100 ms), with the CPU of
 * every process and the API server's requests meanwhile. With {@code queueOrder}, kube-scheduler logs each attempt
 * ({@code -v=3}, which costs it CPU: timings of such a run are not comparable) and the batch prints its
 * {@link QueueOrder}.
 */
final class SchedulerBatch {
    /**
     * One batch: pods/s and seconds from the first to the last pod scheduled; {@code fromStartSeconds} from
     * kube-scheduler's start (its process launched) to the last pod scheduled, which also counts its start, its first
     * list and the first calls to the extender.
     */
    record Result(String mode, double podsPerSecond, double seconds, double fromStartSeconds, double algorithmMs, double extenderFilterMs,
                  Map<String, Double> cpuSeconds, Map<String, Double> musterVerbMs) {}

    private final ControlPlane cp;
    private final Kube admin;
    private final MusterInstall install;
    private final MusterLauncher launcher;
    private final Path config;
    private final Consumer<Map<String, Object>> qps;
    private final int pods;
    private final int gang;
    private final PodCreator creator;
    private final boolean queueOrder;
    private int batch;

    SchedulerBatch(ControlPlane cp, Kube admin, MusterInstall install, MusterLauncher launcher, Path config, Consumer<Map<String, Object>> qps,
                   int pods, int gang, PodCreator creator, boolean queueOrder) {
        this.cp = cp;
        this.admin = admin;
        this.install = install;
        this.launcher = launcher;
        this.config = config;
        this.qps = qps;
        this.pods = pods;
        this.gang = gang;
        this.creator = creator;
        this.queueOrder = queueOrder;
    }

    /**
     * One batch: the pods created, then kube-scheduler started and timed. {@code startAfterPods}, when given, starts the
     * Muster of this run once the pods exist, just before kube-scheduler (as after a failover: its first sync lists them).
     */
    Result measure(String mode, MusterProcess muster, Supplier<MusterProcess> startAfterPods) throws Exception {
        String ns = admin.namespace("bench-" + (++batch));
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
                RealLoopBench.parallel(pods, i -> creator.create(ns, i));
            } finally {
                install.restoreGangMarker();
            }
        } else {
            RealLoopBench.parallel(pods, i -> creator.create(ns, i));
        }
        if (startAfterPods != null) {
            muster = startAfterPods.get();
        }
        Map<String, Double> before = cpu(muster, null);
        Map<String, Double> requestsBefore = apiserverRequests();
        // kube-scheduler's client defaults (50 QPS) would cap "alone" at ~50 Bindings/s, while Muster's binds are not
        // throttled: both modes get the same, higher client budget so the comparison is of scheduling, not throttling
        String musterBefore = muster != null ? muster.metrics() : "";
        long started = System.nanoTime();
        KubeScheduler s = KubeScheduler.start(cp, config, asked ? launcher.url(muster) : null, qps, "kube-scheduler",
                queueOrder ? List.of("-v=3") : List.of()); // -v=3 logs each attempt: the queue's order
        try {
            Map<String, Double> base = cpu(muster, s);
            long first = 0;
            long last;
            double scheduled;
            while (true) {
                scheduled = PromText.counter(s.metrics(cp.adminToken()), "scheduler_schedule_attempts_total", "result=\"scheduled\"");
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
            double algorithm = PromText.mean(m, "scheduler_scheduling_algorithm_duration_seconds", "") * 1000;
            double extender = PromText.mean(m, "scheduler_framework_extension_point_duration_seconds", "extension_point=\"Filter\"") * 1000;
            System.out.println(mode + "    kube-scheduler plugins, mean µs per call (sampled): " + PromText.pluginMeans(m));
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
                    verbs.put(verb, Math.round(PromText.mean(mm, "muster_extender_request_seconds", "verb=\"" + verb + "\"") * 1e5) / 100.0);
                }
                // the scheduler's lock: how often a caller found it held, and the mean wait of those callers
                double contended = PromText.plain(mm, "muster_scheduler_lock_contended_total", "") - PromText.plain(musterBefore, "muster_scheduler_lock_contended_total", "");
                double waited = PromText.plain(mm, "muster_scheduler_lock_wait_seconds_total", "") - PromText.plain(musterBefore, "muster_scheduler_lock_wait_seconds_total", "");
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
            if (queueOrder && gang > 0) {
                System.out.println(mode + "    " + QueueOrder.read(s.log(), ns, gang));
            }
            return new Result(mode, pods / Math.max(seconds, 1e-3), seconds, (last - started) / 1e9, algorithm, extender, cpu, verbs);
        } finally {
            s.close();
            RealLoopBench.deleteAll(admin, ns);
        }
    }

    /** What the API server has been asked so far ({@link PromText#apiserverRequests}). */
    private Map<String, Double> apiserverRequests() {
        return PromText.apiserverRequests(Http.get(cp.url() + "/metrics", cp.adminToken()).body());
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

    static void print(Result r) {
        System.out.printf(Locale.ROOT, "%-8s %7.0f pods/s  %6.1f s  %6.1f s from kube-scheduler's start  algorithm %.2f ms  cpu %s  muster verbs %s%n",
                r.mode(), r.podsPerSecond(), r.seconds(), r.fromStartSeconds(), r.algorithmMs(), r.cpuSeconds(), r.musterVerbMs());
    }
}
