package dev.muster.bench;

import dev.muster.common.http.Http1Response;
import dev.muster.common.http.Http1Server;
import dev.muster.common.ops.OpsEndpoints;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.server.http.ExtenderHttpServer;
import dev.muster.server.http.ExtenderMetrics;
import dev.muster.server.http.ExtenderVerbs;
import dev.muster.server.http.LeaderForwarder;
import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import io.prometheus.client.CollectorRegistry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * filter + prioritize over real HTTP with keep-alive, as kube-scheduler calls them for one pod (serial),
 * with 500 and 5,000 node names ({@code nodeCacheCapable: true}). Prints latency percentiles of the
 * pair, measured at a minimal Go-like keep-alive client on the same 2-core machine (its cost included).
 * The JDK HttpClient warms the server up first. Then the same client against the transport floor: the same server
 * code answering the same requests with the same answers' bytes (captured from Muster) and doing nothing else — on a
 * small VM its tail is set by how long a parked thread takes to run again, and the difference is Muster's own work.
 *
 * <p>Args: iterations (default 20000) warmup (default 5000) node counts (default 500,5000).
 */
public final class HttpExtenderBench {
    public static void main(String[] args) throws Exception {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
        int[] sizes = args.length > 2 ? Arrays.stream(args[2].split(",")).mapToInt(Integer::parseInt).toArray() : new int[] {500, 5_000};
        for (int nodes : sizes) {
            run(nodes, iterations, warmup);
        }
    }

    static void run(int nodes, int iterations, int warmup) throws Exception {
        AllocationJournal journal = new AllocationJournal(1 << 16, java.time.InstantSource.system());
        GangScheduler s = new GangScheduler(SchedulerConfig.DEFAULT, (p, n) -> CompletableFuture.completedFuture(null), journal, System::nanoTime);
        List<String> names = ClusterModel.populate(s, nodes, 20, 7);
        CollectorRegistry registry = new CollectorRegistry();
        try (ExtenderHttpServer server = new ExtenderHttpServer(new InetSocketAddress("127.0.0.1", 0), null,
                new ExtenderVerbs(s, Duration.ofMinutes(2)), new ExtenderMetrics(registry, s, journal), new OpsEndpoints(registry, () -> null),
                Leadership.ALWAYS, new LeaderForwarder(null, Duration.ofSeconds(5)), () -> null, 64L << 20)) {
            ExtenderClient client = new ExtenderClient("http://127.0.0.1:" + server.port(), Duration.ofSeconds(30));
            String pod = ExtenderClient.podJson(new ExtenderClient.PodSpec("bench-pod", "bench", "bench-pod-uid",
                    Map.of("cpu", "1", "memory", "2Gi"), Map.of(), "muster"));
            byte[] body = ExtenderClient.extenderArgs(pod, names);
            for (int i = 0; i < warmup; i++) {
                client.post("/filter", body);
                client.post("/prioritize", body);
            }
            // the floor: the same requests and the same answers' bytes through the same server code, with no decoding,
            // deciding or encoding; what the pair costs above it is Muster's work. Measured in alternating blocks of
            // 1,000 pairs, so a noisy minute on the machine falls on both alike.
            ExtenderVerbs verbs = new ExtenderVerbs(s, Duration.ofMinutes(2));
            Http1Response filtered = new Http1Response(200, "application/json", verbs.filter(body).body());
            Http1Response scored = new Http1Response(200, "application/json", verbs.prioritize(body).body());
            try (Http1Server floor = new Http1Server("floor", new InetSocketAddress("127.0.0.1", 0), null,
                    request -> request.path().endsWith("/filter") ? filtered : scored, 64L << 20, Duration.ofMinutes(2), 16);
                 RawHttpClient toMuster = new RawHttpClient("127.0.0.1", server.port());
                 RawHttpClient toFloor = new RawHttpClient("127.0.0.1", floor.port())) {
                Pairs muster = new Pairs(iterations);
                Pairs bare = new Pairs(iterations);
                for (int i = 0; i < warmup; i++) {
                    pair(toMuster, body);
                    pair(toFloor, body);
                }
                for (int done = 0; done < iterations; done += BLOCK) {
                    for (int i = done; i < Math.min(iterations, done + BLOCK); i++) {
                        muster.record(i, toMuster, body);
                    }
                    for (int i = done; i < Math.min(iterations, done + BLOCK); i++) {
                        bare.record(i, toFloor, body);
                    }
                }
                System.out.printf("nodes=%d body=%dB iterations=%d  %s%n", nodes, body.length, iterations, muster);
                System.out.printf("nodes=%d transport floor (same bytes, no work)  %s%n", nodes, bare);
            }
        }
    }

    private static final int BLOCK = 1_000;

    private static void pair(RawHttpClient client, byte[] body) throws Exception {
        client.post("/filter", body);
        client.post("/prioritize", body);
    }

    /** Latencies of filter + prioritize pairs and of the filter alone, from a Go-like keep-alive client. */
    private record Pairs(long[] pair, long[] filterOnly) {
        Pairs(int iterations) {
            this(new long[iterations], new long[iterations]);
        }

        void record(int i, RawHttpClient client, byte[] body) throws Exception {
            long t0 = System.nanoTime();
            int f = client.post("/filter", body);
            long t1 = System.nanoTime();
            int p = client.post("/prioritize", body);
            long t2 = System.nanoTime();
            if (f != 200 || p != 200) {
                throw new IllegalStateException("unexpected status " + f + "/" + p);
            }
            filterOnly[i] = t1 - t0;
            pair[i] = t2 - t0;
        }

        @Override
        public String toString() {
            long[] p = pair.clone();
            long[] f = filterOnly.clone();
            Arrays.sort(p);
            Arrays.sort(f);
            return String.format("filter+prioritize: p50=%.3fms p90=%.3fms p99=%.3fms max=%.3fms  filter: p50=%.3fms p99=%.3fms",
                    pct(p, 50), pct(p, 90), pct(p, 99), p[p.length - 1] / 1e6, pct(f, 50), pct(f, 99));
        }
    }

    static double pct(long[] sorted, double p) {
        return sorted[(int) Math.min(sorted.length - 1, Math.ceil(p / 100 * sorted.length) - 1)] / 1e6;
    }
}
