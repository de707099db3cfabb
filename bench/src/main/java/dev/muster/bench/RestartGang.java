package dev.muster.bench;

import dev.muster.e2e.ControlPlane;
import dev.muster.e2e.Kube;
import dev.muster.e2e.KubeScheduler;
import dev.muster.e2e.MusterProcess;
import io.kubernetes.client.openapi.models.V1Pod;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Mode {@code restart-gang} of {@link RealLoopBench}: a gang created just after a restarted extender is ready. One
 * kube-scheduler runs throughout with the extender at a fixed port; each round starts a fresh extender there (its first
 * sync lists every node and the bound pods), and as soon as it is ready creates a PodGroup of 8 and its 8 members
 * (8 clients at once), then reports creation → all 8 bound (spec.nodeName of each, polled every 10 ms), with the
 * extender's CPU and resident memory at ready, kube-scheduler's attempts by result and Muster's answers (where the time
 * went). A first round, not reported, lets kube-scheduler's own first list finish. Used by the benchmark's one driving
 * thread.
 */
final class RestartGang implements AutoCloseable {
    static final String MODE = "restart-gang";
    private static final int MEMBERS = 8;

    private final ControlPlane cp;
    private final Kube admin;
    private final MusterLauncher launcher;
    private final int verbs = ControlPlane.freePort();
    private final KubeScheduler scheduler;
    private int round;

    /** What one round measured. */
    record Result(MusterLauncher.Start start, double allBoundSeconds, double lastCreatedToBoundSeconds, String why) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "gang of %d created → all bound %.2f s (last created → all bound %.2f s); %s; extender %s", MEMBERS,
                    allBoundSeconds, lastCreatedToBoundSeconds, why, start);
        }
    }

    RestartGang(ControlPlane cp, Kube admin, MusterLauncher launcher, Path config, int schedulerQps) {
        this.cp = cp;
        this.admin = admin;
        this.launcher = launcher;
        this.scheduler = KubeScheduler.start(cp, config, "http://127.0.0.1:" + verbs, cfg -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> cc = (Map<String, Object>) cfg.get("clientConnection");
            cc.put("qps", schedulerQps);
            cc.put("burst", schedulerQps);
        }, "kube-scheduler-restart");
    }

    /** kube-scheduler's attempts by result and Muster's answers so far: where the time of a gang went. */
    private String why(MusterProcess m, String before) {
        String k = scheduler.metrics(cp.adminToken());
        String mm = m.metrics();
        StringBuilder out = new StringBuilder("kube-scheduler attempts");
        for (String result : List.of("scheduled", "unschedulable", "error")) {
            out.append(' ').append(result).append('=').append(Math.round(PromText.counter(k, "scheduler_schedule_attempts_total", "result=\"" + result + "\"")
                    - PromText.counter(before, "scheduler_schedule_attempts_total", "result=\"" + result + "\"")));
        }
        out.append(", muster");
        for (String verb : List.of("filter", "bind")) {
            out.append(String.format(Locale.ROOT, " %s %d (mean %.1f ms)", verb,
                    Math.round(PromText.counter(mm, "muster_extender_request_seconds_count", "verb=\"" + verb + "\"")),
                    PromText.mean(mm, "muster_extender_request_seconds", "verb=\"" + verb + "\"") * 1000));
        }
        out.append(", filter errors ").append(Math.round(PromText.counter(mm, "muster_filter_errors_total", "")))
                .append(", filters that waited for the informer ").append(Math.round(PromText.counter(mm, "muster_filter_pod_waits_total", "")
                        + PromText.plain(mm, "muster_filter_pod_waits_total", "")));
        return out.toString();
    }

    /** One restart of the extender (this build's, or the baseline's) and one gang right after it is ready. */
    Result round(String name, MusterLauncher.ClassData classData, boolean baseline) throws Exception {
        String ns = admin.namespace("restart-gang-" + (++round));
        awaitFree(verbs);
        MusterProcess m = launcher.start(name, classData, baseline, verbs);
        try {
            long t0 = System.nanoTime();
            MusterLauncher.Start start = launcher.measured(m);
            String before = scheduler.metrics(cp.adminToken());
            String group = "g";
            ExecutorService pool = Executors.newFixedThreadPool(MEMBERS);
            long lastCreated;
            try {
                List<Future<?>> created = new ArrayList<>();
                created.add(pool.submit(() -> admin.podGroup(ns, group, MEMBERS, "default", Map.of())));
                for (int i = 0; i < MEMBERS; i++) {
                    int k = i;
                    created.add(pool.submit(() -> admin.pod(ns, group + "-" + k, group, "100m", "128Mi")));
                }
                for (Future<?> f : created) {
                    f.get();
                }
                lastCreated = System.nanoTime();
            } finally {
                pool.shutdown();
            }
            long deadline = t0 + 120_000_000_000L;
            while (true) {
                List<V1Pod> pods = admin.pods(ns);
                long bound = pods.stream().filter(p -> p.getSpec().getNodeName() != null).count();
                long now = System.nanoTime();
                if (bound == MEMBERS) {
                    Result r = new Result(start, (now - t0) / 1e9, (now - lastCreated) / 1e9, why(m, before));
                    System.out.printf(Locale.ROOT, "%s %s%n", name, r);
                    return r;
                }
                if (now > deadline) {
                    throw new IllegalStateException(name + ": " + bound + " of " + MEMBERS + " bound 120 s after the gang was created; see "
                            + m.log() + "\n" + m.logTail(40));
                }
                Thread.sleep(10);
            }
        } finally {
            launcher.stop(m);
            Kube.call("delete pods", () -> admin.core().deleteCollectionNamespacedPod(ns).gracePeriodSeconds(0).execute());
        }
    }

    /** Waits (up to 60 s) until the extender of the round before, or one that failed to start, has let go of {@code port}. */
    private static void awaitFree(int port) throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try (java.net.ServerSocket s = new java.net.ServerSocket()) {
                s.bind(new java.net.InetSocketAddress("127.0.0.1", port));
                return;
            } catch (java.io.IOException held) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("port " + port + " is still held 60 s after the last extender stopped", held);
                }
                Thread.sleep(200);
            }
        }
    }

    @Override
    public void close() {
        scheduler.close();
    }
}
