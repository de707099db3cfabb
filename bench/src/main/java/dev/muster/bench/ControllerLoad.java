package dev.muster.bench;

import dev.muster.controller.Controller;
import dev.muster.controller.writer.StatusWriter;
import dev.muster.core.status.StatusChangeFanout;
import dev.muster.core.status.StatusFolding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Load driver for the controller's write path: synthetic gang lifecycles ({@link ControllerLoadWorkload})
 * pushed through the real {@link Controller} — fold, dirty set, writer, token bucket, backoff — with a counting
 * fake API, on a simulated clock, faster than real time with the same event counts. For each rate it then runs
 * the same stream through {@link ControllerLoadSeedModel} (Volcano's per-event, conflict-and-requeue design).
 *
 * <p>Reports per rate: live heap after GC every simulated minute, status writes per second and per flush (checked
 * against the dirty objects at each flush), write lag (first change → write, simulated) p50/p99/max for Queues and
 * PodGroups, pending entries against objects (checked at each flush), and the seed model's backlog and heap.
 *
 * <pre>
 * mvn -o -q -pl bench -am verify -DskipTests -Pbench -Dbench.main=dev.muster.bench.ControllerLoad \
 *     -Dbench.jvm="-Xmx2g -XX:+UseParallelGC" -Dbench.args="--rates 20000,100000,200000 --minutes 10"
 * </pre>
 * Options: {@code --rates} pods per minute (comma-separated), {@code --minutes} simulated minutes per run,
 * {@code --queues} 50, {@code --alive} PodGroups alive at once (10000), {@code --api-qps} 20, {@code --api-burst} 40,
 * {@code --failure-rate} share of writes the fake API fails (409/429/500/timeout in turn, 0.01),
 * {@code --informer-lag-ms} the seed model's cache lag (500), {@code --seed} 1.
 */
public final class ControllerLoad {
    private static final long SECOND = 1_000_000_000L;
    private static final int SLICES_PER_SECOND = 100;

    private ControllerLoad() {}

    record Options(List<Long> rates, int minutes, int queues, int alive, double apiQps, int apiBurst, double failureRate,
                   long informerLagMs, long seed) {
        static Options parse(String[] args) {
            Map<String, String> m = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                if (!a.startsWith("--")) {
                    throw new IllegalArgumentException("unexpected argument " + a);
                }
                String name = a.substring(2);
                String value;
                int eq = name.indexOf('=');
                if (eq >= 0) {
                    value = name.substring(eq + 1);
                    name = name.substring(0, eq);
                } else {
                    value = args[++i];
                }
                m.put(name, value);
            }
            List<Long> rates = Arrays.stream(m.getOrDefault("rates", "20000,100000,200000").split(",")).map(String::trim).map(Long::parseLong).toList();
            Options o = new Options(rates, Integer.parseInt(m.getOrDefault("minutes", "10")), Integer.parseInt(m.getOrDefault("queues", "50")),
                    Integer.parseInt(m.getOrDefault("alive", "10000")), Double.parseDouble(m.getOrDefault("api-qps", "20")),
                    Integer.parseInt(m.getOrDefault("api-burst", "40")), Double.parseDouble(m.getOrDefault("failure-rate", "0.01")),
                    Long.parseLong(m.getOrDefault("informer-lag-ms", "500")), Long.parseLong(m.getOrDefault("seed", "1")));
            m.keySet().removeAll(List.of("rates", "minutes", "queues", "alive", "api-qps", "api-burst", "failure-rate", "informer-lag-ms", "seed"));
            if (!m.isEmpty()) {
                throw new IllegalArgumentException("unknown options " + m.keySet());
            }
            return o;
        }
    }

    record MusterResult(long rate, long events, long gangs, long pods, long lifetimeSeconds, List<Double> heapMb, long writes,
                        long maxWritesPerFlush, long maxPending, long maxObjects, String queueLag, String podGroupLag,
                        long failures, long skipped, long deletedUnwritten, long deleted, double wallSeconds) {
        double writesPerSecond(int minutes) {
            return writes / (minutes * 60.0);
        }
    }

    record SeedResult(long rate, List<Integer> backlog, List<Double> heapMb, long requests, long conflicts, long writes, double wallSeconds) {}

    public static void main(String[] args) {
        Options o = Options.parse(args);
        System.out.printf(Locale.ROOT, "ControllerLoad: %d queues, %d PodGroups alive, %d simulated minutes per run, --api-qps %s --api-burst %d, "
                        + "%.1f%% injected write failures, seed-model informer lag %d ms, Java %s%n",
                o.queues(), o.alive(), o.minutes(), fmt(o.apiQps()), o.apiBurst(), o.failureRate() * 100, o.informerLagMs(),
                System.getProperty("java.version"));
        List<MusterResult> muster = new ArrayList<>();
        List<SeedResult> seed = new ArrayList<>();
        for (long rate : o.rates()) {
            muster.add(runMuster(o, rate));
            seed.add(runSeed(o, rate));
        }
        System.out.println();
        System.out.println(markdown(o, muster, seed));
    }

    static MusterResult runMuster(Options o, long rate) {
        long baseline = usedAfterGc();
        long wallStart = System.nanoTime();
        ControllerLoadTime time = new ControllerLoadTime();
        ControllerLoadApi.Patches api = new ControllerLoadApi.Patches(o.seed(), o.failureRate());
        ControllerLoadApi.Lag lag = new ControllerLoadApi.Lag();
        Controller controller = new Controller(new Controller.Settings(o.apiQps(), o.apiBurst(), Controller.Settings.WRITE_BACKOFF), api, time, time,
                Runnable::run, lag);
        ControllerLoadWorkload workload = new ControllerLoadWorkload(rate, o.queues(), o.alive(), o.seed());
        ControllerLoadSinks.ToController sink = new ControllerLoadSinks.ToController(controller, time, api);
        workload.createQueues(sink);
        controller.cluster().synced();
        controller.allocations().markSynced();
        controller.setLeading(true);
        List<Double> heap = new ArrayList<>();
        long maxWritesPerFlush = 0;
        long maxPending = 0;
        long maxObjects = 0;
        for (int s = 1; s <= o.minutes() * 60; s++) {
            for (int slice = 1; slice <= SLICES_PER_SECOND; slice++) {
                long t = (s - 1) * SECOND + slice * (SECOND / SLICES_PER_SECOND) - 1;
                workload.runUntil(t, sink);
            }
            time.set(s * SECOND);
            int pendingBefore = controller.pendingWrites();
            int objects = controller.objects();
            if (pendingBefore > objects) {
                throw new AssertionError("pending " + pendingBefore + " > objects " + objects + " at " + s + " s");
            }
            StatusWriter.FlushResult f = controller.flush();
            if (f.written() + f.failed() > pendingBefore) {
                throw new AssertionError("flush at " + s + " s issued " + (f.written() + f.failed()) + " writes for " + pendingBefore + " dirty objects");
            }
            maxWritesPerFlush = Math.max(maxWritesPerFlush, f.written() + f.failed());
            maxPending = Math.max(maxPending, pendingBefore);
            maxObjects = Math.max(maxObjects, objects);
            if (s % 60 == 0) {
                heap.add((usedAfterGc() - baseline) / 1e6);
                System.out.printf(Locale.ROOT, "  muster %,d pods/min  minute %2d: live heap %6.1f MB, objects %,6d, pending %,6d, member pods %,6d, writes so far %,d%n",
                        rate, s / 60, heap.getLast(), objects, controller.pendingWrites(), controller.foldStats().memberPods(), lag.queueWrites + lag.podGroupWrites);
            }
        }
        return new MusterResult(rate, workload.events(), workload.gangsCreated(), workload.podsCreated(), workload.lifetimeSeconds(), heap,
                lag.queueWrites + lag.podGroupWrites, maxWritesPerFlush, maxPending, maxObjects, lag.summary(true), lag.summary(false),
                lag.failed, lag.skipped, api.deletedUnwritten, api.deleted, (System.nanoTime() - wallStart) / 1e9);
    }

    static SeedResult runSeed(Options o, long rate) {
        long baseline = usedAfterGc();
        long wallStart = System.nanoTime();
        ControllerLoadTime time = new ControllerLoadTime();
        StatusChangeFanout fanout = new StatusChangeFanout();
        StatusFolding fold = new StatusFolding(time, fanout);
        ControllerLoadSeedModel model = new ControllerLoadSeedModel(fold, o.informerLagMs() * 1_000_000L, 10, 100);
        fanout.add(model);
        ControllerLoadWorkload workload = new ControllerLoadWorkload(rate, o.queues(), o.alive(), o.seed());
        ControllerLoadSinks.ToFold sink = new ControllerLoadSinks.ToFold(fold, time);
        workload.createQueues(sink);
        List<Integer> backlog = new ArrayList<>();
        List<Double> heap = new ArrayList<>();
        for (int s = 1; s <= o.minutes() * 60; s++) {
            for (int slice = 1; slice <= SLICES_PER_SECOND; slice++) {
                long t = (s - 1) * SECOND + slice * (SECOND / SLICES_PER_SECOND);
                workload.runUntil(t - 1, sink);
                time.set(t);
                model.advance(t);
            }
            if (s % 60 == 0) {
                heap.add((usedAfterGc() - baseline) / 1e6);
                backlog.add(model.backlog());
                System.out.printf(Locale.ROOT, "  seed   %,d pods/min  minute %2d: live heap %6.1f MB, backlog %,9d requests, conflicts so far %,d%n",
                        rate, s / 60, heap.getLast(), model.backlog(), model.conflicts());
            }
        }
        return new SeedResult(rate, backlog, heap, model.requests(), model.conflicts(), model.writes(), (System.nanoTime() - wallStart) / 1e9);
    }

    static String markdown(Options o, List<MusterResult> muster, List<SeedResult> seed) {
        StringBuilder sb = new StringBuilder();
        sb.append("| pods/min | events | PodGroups alive (lifetime) | live heap after GC, minutes 3→10 (MB) | heap spread after warm-up "
                + "| status writes/s (max per flush) | lag p50/p99/max, Queues (s) | lag p50/p99/max, PodGroups (s) "
                + "| PodGroups deleted before any write | max pending / max objects | failed writes (retried) | wall time |\n");
        sb.append("|---:|---:|---|---|---:|---|---|---|---:|---|---:|---:|\n");
        for (MusterResult r : muster) {
            List<Double> warm = r.heapMb().subList(Math.min(2, r.heapMb().size() - 1), r.heapMb().size());
            double min = warm.stream().mapToDouble(Double::doubleValue).min().orElse(0);
            double max = warm.stream().mapToDouble(Double::doubleValue).max().orElse(0);
            double mean = warm.stream().mapToDouble(Double::doubleValue).average().orElse(1);
            sb.append(String.format(Locale.ROOT, "| %,d | %,d | %,d (%d s) | %s | ±%.1f%% | %.1f (%d) | %s | %s | %.1f%% | %,d / %,d | %,d | %.0f s |%n",
                    r.rate(), r.events(), o.alive(), r.lifetimeSeconds(), series(warm), (max - min) / 2 / mean * 100,
                    r.writesPerSecond(o.minutes()), r.maxWritesPerFlush(), r.queueLag(), r.podGroupLag(),
                    r.deleted() == 0 ? 0.0 : 100.0 * r.deletedUnwritten() / r.deleted(), r.maxPending(), r.maxObjects(),
                    r.failures(), r.wallSeconds()));
        }
        sb.append("\nVolcano's design on the same stream (per-event Queue updates, 409 on a stale cache, re-queued through a 10 QPS limiter):\n\n");
        sb.append("| pods/min | Queue update requests | conflicts | backlog after each minute (requests) | live heap after GC each minute (MB) | wall time |\n");
        sb.append("|---:|---:|---:|---|---|---:|\n");
        for (SeedResult r : seed) {
            sb.append(String.format(Locale.ROOT, "| %,d | %,d | %,d | %s | %s | %.0f s |%n", r.rate(), r.requests(), r.conflicts(),
                    r.backlog().stream().map(b -> String.format(Locale.ROOT, "%,d", b)).reduce((a, b) -> a + " → " + b).orElse(""),
                    series(r.heapMb()), r.wallSeconds()));
        }
        return sb.toString();
    }

    private static String series(List<Double> values) {
        return values.stream().map(v -> String.format(Locale.ROOT, "%.1f", v)).reduce((a, b) -> a + " → " + b).orElse("");
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
