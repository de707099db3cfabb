package dev.muster.bench;

import com.google.gson.reflect.TypeToken;
import dev.muster.e2e.ControlPlane;
import dev.muster.e2e.Kube;
import dev.muster.e2e.KubeScheduler;
import dev.muster.e2e.MusterProcess;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.util.Watch;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * Modes {@code burst-alone} and {@code burst} of {@link RealLoopBench}: single pods arriving in a burst into a running
 * kube-scheduler. Each round starts a fresh kube-scheduler (the project's profile; without the extender for
 * {@code burst-alone}, with the warm Muster for {@code burst}), waits until its /readyz answers and then
 * {@link #SETTLE_MS} more, opens a watch on the round's namespace, and creates the pods from 8 threads. A pod's creation
 * time is {@link System#nanoTime()} right before its create request is sent (so it includes the API server's own
 * answer); its bound time is the {@link System#nanoTime()} at which the watch first shows {@code spec.nodeName} set.
 * Reports creation → bound percentiles, the pods that waited more than 1 s, first create → last bind, kube-scheduler's
 * attempts by result during the round (attempts beyond one per pod are retries after a backoff) and, with Muster,
 * the round's filters answered with an error (by cause) and filters that waited for a pod its informers had not shown
 * yet (by outcome). Used by the benchmark's one driving thread; the watch runs on one thread of its own per round.
 */
final class BurstRound {
    static final String ALONE = "burst-alone";
    static final String MUSTER = "burst";
    /** After /readyz, so the burst meets a kube-scheduler at rest rather than one finishing its start. */
    private static final long SETTLE_MS = 3000;
    /** Every pod bound within this, or the round fails. */
    private static final long BOUND_CAP_NANOS = TimeUnit.MINUTES.toNanos(10);

    /** What one round measured; latencies in ms. */
    record Result(String mode, int round, int pods, double p50, double p90, double p99, double max, int overOneSecond, double allBoundSeconds,
                  String attempts, String muster) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%-12s %d pods: creation → bound p50 %.0f ms, p90 %.0f ms, p99 %.0f ms, max %.0f ms, %d over 1 s; "
                    + "all bound %.2f s; kube-scheduler attempts %s%s", mode, pods, p50, p90, p99, max, overOneSecond, allBoundSeconds, attempts,
                    muster.isEmpty() ? "" : "; muster " + muster);
        }
    }

    private final ControlPlane cp;
    private final Kube admin;
    private final Path config;
    private final Consumer<Map<String, Object>> qps;
    private final PodCreator creator;
    private int round;

    BurstRound(ControlPlane cp, Kube admin, Path config, Consumer<Map<String, Object>> qps, PodCreator creator) {
        this.cp = cp;
        this.admin = admin;
        this.config = config;
        this.qps = qps;
        this.creator = creator;
    }

    /**
     * One burst of {@code pods} pods into a fresh, settled kube-scheduler.
     *
     * @param muster the warm Muster and its URL for mode {@code burst}; null for {@code burst-alone}
     */
    Result round(String name, String mode, int benchRound, int pods, MusterProcess muster, String musterUrl) throws Exception {
        String ns = admin.namespace("burst-" + (++round));
        KubeScheduler s = KubeScheduler.start(cp, config, muster == null ? null : musterUrl, qps);
        long[] created = new long[pods];
        long[] bound = new long[pods];
        Map<String, Integer> index = new ConcurrentHashMap<>();
        for (int i = 0; i < pods; i++) {
            index.put("p" + i, i);
        }
        CountDownLatch allBound = new CountDownLatch(pods);
        AtomicReference<Throwable> watchFailed = new AtomicReference<>();
        AtomicReference<Watch<V1Pod>> current = new AtomicReference<>();
        Thread watcher = null;
        try {
            awaitReady(s);
            Thread.sleep(SETTLE_MS);
            String resourceVersion = admin.core().listNamespacedPod(ns).execute().getMetadata().getResourceVersion();
            ApiClient client = cp.adminClient();
            client.setReadTimeout(0); // a watch is quiet between events
            current.set(open(client, ns, resourceVersion)); // established before the first pod is created
            watcher = Thread.ofPlatform().name("burst-watch").daemon().start(() -> {
                try {
                    watch(client, ns, current, index, bound, allBound);
                } catch (Throwable t) {
                    watchFailed.set(t);
                }
            });
            String schedulerBefore = s.metrics(cp.adminToken());
            String musterBefore = muster == null ? "" : muster.metrics();
            RealLoopBench.parallel(pods, i -> {
                created[i] = System.nanoTime(); // right before the create request is sent
                creator.create(ns, i);
            });
            long deadline = System.nanoTime() + BOUND_CAP_NANOS;
            while (!allBound.await(1, TimeUnit.SECONDS)) {
                if (watchFailed.get() != null) {
                    throw new IllegalStateException(name + ": the pod watch failed", watchFailed.get());
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + ": only " + (pods - allBound.getCount()) + " of " + pods
                            + " pods bound 10 minutes after the burst; kube-scheduler's log: " + s.log());
                }
            }
            String attempts = attempts(schedulerBefore, s.metrics(cp.adminToken()));
            String musterDelta = muster == null ? "" : musterDelta(musterBefore, muster.metrics());
            Result r = result(mode, benchRound, created, bound, attempts, musterDelta);
            System.out.println(name + " " + r);
            return r;
        } finally {
            if (watcher != null) {
                watcher.interrupt();
                try {
                    current.get().close(); // ends a watch still waiting (a failed round)
                } catch (java.io.IOException ignored) {
                    // the round's outcome is already decided
                }
            }
            s.close();
            RealLoopBench.deleteAll(admin, ns);
        }
    }

    private static void awaitReady(KubeScheduler s) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!s.ready()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("kube-scheduler's /readyz did not answer OK within 120 s; see " + s.log());
            }
            Thread.sleep(100);
        }
    }

    private static Watch<V1Pod> open(ApiClient client, String ns, String resourceVersion) throws Exception {
        return Watch.createWatch(client, new CoreV1Api(client).listNamespacedPod(ns).watch(true).allowWatchBookmarks(false)
                .resourceVersion(resourceVersion).timeoutSeconds(1800).buildCall(null), new TypeToken<Watch.Response<V1Pod>>() {}.getType());
    }

    /** Stamps each pod's first event with spec.nodeName; reopens the watch at the last version seen if the server ends it. */
    private static void watch(ApiClient client, String ns, AtomicReference<Watch<V1Pod>> current, Map<String, Integer> index, long[] bound,
                              CountDownLatch allBound) throws Exception {
        String resourceVersion = null;
        while (allBound.getCount() > 0 && !Thread.currentThread().isInterrupted()) {
            try (Watch<V1Pod> open = current.get()) {
                for (Watch.Response<V1Pod> e : open) {
                    if (e.object == null || e.object.getMetadata() == null) {
                        continue;
                    }
                    resourceVersion = e.object.getMetadata().getResourceVersion();
                    Integer i = index.get(e.object.getMetadata().getName());
                    if (i != null && e.object.getSpec().getNodeName() != null && bound[i] == 0) {
                        bound[i] = System.nanoTime();
                        allBound.countDown();
                    }
                    if (allBound.getCount() == 0) {
                        return;
                    }
                }
            }
            current.set(open(client, ns, resourceVersion));
        }
    }

    private static Result result(String mode, int round, long[] created, long[] bound, String attempts, String muster) {
        int n = created.length;
        double[] ms = new double[n];
        long firstCreated = Long.MAX_VALUE;
        long lastBound = Long.MIN_VALUE;
        int over = 0;
        for (int i = 0; i < n; i++) {
            ms[i] = (bound[i] - created[i]) / 1e6;
            over += ms[i] > 1000 ? 1 : 0;
            firstCreated = Math.min(firstCreated, created[i]);
            lastBound = Math.max(lastBound, bound[i]);
        }
        Arrays.sort(ms);
        return new Result(mode, round, n, rank(ms, 0.50), rank(ms, 0.90), rank(ms, 0.99), ms[n - 1], over, (lastBound - firstCreated) / 1e9, attempts, muster);
    }

    /** The nearest-rank percentile of sorted {@code ms}. */
    private static double rank(double[] ms, double q) {
        return ms[Math.max(0, (int) Math.ceil(q * ms.length) - 1)];
    }

    private static String attempts(String before, String after) {
        StringBuilder out = new StringBuilder();
        for (String result : List.of("scheduled", "unschedulable", "error")) {
            String label = "result=\"" + result + "\"";
            out.append(out.isEmpty() ? "" : " ").append(result).append('=').append(Math.round(
                    PromText.counter(after, "scheduler_schedule_attempts_total", label) - PromText.counter(before, "scheduler_schedule_attempts_total", label)));
        }
        return out.toString();
    }

    /** The round's filters answered with an error, by cause, and filters that waited for an unseen pod, by outcome. */
    private static String musterDelta(String before, String after) {
        return "filter errors " + delta(before, after, "muster_filter_errors_total", "cause")
                + ", filter pod waits " + delta(before, after, "muster_filter_pod_waits_total", "outcome");
    }

    private static String delta(String before, String after, String counter, String label) {
        Map<String, Double> was = PromText.byLabel(before, counter, label);
        StringBuilder out = new StringBuilder();
        long total = 0;
        for (Map.Entry<String, Double> e : PromText.byLabel(after, counter, label).entrySet()) {
            long d = Math.round(e.getValue() - was.getOrDefault(e.getKey(), 0.0));
            total += d;
            if (d > 0) {
                out.append(' ').append(e.getKey()).append('=').append(d);
            }
        }
        return total + (out.isEmpty() ? "" : " (" + out.toString().trim() + ")");
    }

    /** The summary of the burst rounds, and per round the ratio of p99 with Muster to p99 of kube-scheduler alone. */
    static void summary(List<Result> results) {
        if (results.isEmpty()) {
            return;
        }
        System.out.println("| mode | p50 ms | p99 ms | max ms | > 1 s | all bound s |");
        System.out.println("|---|---|---|---|---|---|");
        for (Result r : results) {
            System.out.println(String.format(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %d | %.2f |", r.mode(), r.p50(), r.p99(), r.max(),
                    r.overOneSecond(), r.allBoundSeconds()));
        }
        // a pair: the two modes of one round (a failed round has no pair)
        for (Result m : results) {
            results.stream().filter(a -> m.mode().equals(MUSTER) && a.mode().equals(ALONE) && a.round() == m.round()).findFirst()
                    .ifPresent(a -> System.out.println(String.format(Locale.ROOT, "round %d: p99 burst / burst-alone = %.0f / %.0f ms = %.2f",
                            m.round(), m.p99(), a.p99(), m.p99() / a.p99())));
        }
    }
}
