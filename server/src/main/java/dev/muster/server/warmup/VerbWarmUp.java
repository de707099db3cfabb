package dev.muster.server.warmup;

import dev.muster.core.gang.Binder;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Node;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.preempt.PreemptionSettings;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.SchedulerConfig;
import dev.muster.core.stream.AllocationJournal;
import dev.muster.server.http.ExtenderVerbs;
import dev.muster.server.http.FilterErrors;
import dev.muster.server.http.wire.WireDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs the verbs' own code before kube-scheduler's first request reaches it, so that a freshly started extender (a
 * restart, or a standby that takes over) answers its first batch with compiled code instead of compiling it on the
 * cores that batch needs.
 *
 * <p>It builds a core of its own — a ledger, a journal and a binder that binds nothing — and feeds it made-up nodes and
 * pods, then answers kube-scheduler's requests about them through {@link ExtenderVerbs}, as the HTTP server does: the
 * wire decoder, the filter of single pods (the node picked) and of gang members, the informer's view of each pod bound
 * by kube-scheduler, the bind verb of whole gangs through their barrier, and the wire encoder. Nothing of it reaches the
 * cluster, the extender's core, its journal or its metrics: that core is dropped when this returns. What it cannot
 * reach — the connections' HTTP and TLS code — compiles within the first real requests.
 *
 * <p>Single-threaded, except that each gang's binds wait on virtual threads of their own, as each of kube-scheduler's
 * bind calls waits on a connection's thread. Stateless between runs.
 */
public final class VerbWarmUp {
    /** The made-up objects' namespace and name prefix, in case a message about one is ever logged. */
    static final String NAMESPACE = "muster-warm-up";

    /** What one run did: requests answered by outcome, and how long it took. */
    public record Result(int filtersFit, int filtersOther, int bindsBound, int bindsOther, Duration took) {
        @Override
        public String toString() {
            return filtersFit + " filters fit (" + filtersOther + " otherwise), " + bindsBound + " binds bound (" + bindsOther
                    + " otherwise) in " + took.toMillis() + " ms";
        }
    }

    /** How much to run: nodes named in every filter request, single pods, and gangs of {@code gangSize}. */
    public record Size(int nodes, int singlePods, int gangs, int gangSize) {
        public Size {
            if (nodes < 1 || singlePods < 0 || gangs < 0 || gangSize < 1) {
                throw new IllegalArgumentException("warm-up size: at least one node, no negative counts and gangs of at least one, got "
                        + nodes + " nodes, " + singlePods + " single pods, " + gangs + " gangs of " + gangSize);
            }
        }

        /**
         * kube-scheduler names about 420 nodes at 1,000 (its {@code numFeasibleNodesToFind}); 200 single pods and 20 gangs
         * of 8 call each method on the way more often than the JIT waits for, with C1 compiling early as the chart starts it.
         */
        public static final Size DEFAULT = new Size(400, 200, 20, 8);
    }

    private static final Duration BIND_WAIT = Duration.ofSeconds(10);
    /** How many times the rounds asked for the warm-up may run in all while the JIT is still compiling. */
    private static final int MORE_ROUNDS = 3;

    /** Whether the JIT compiled anything since it was last asked (its total compilation time moved), where the JVM tells. */
    private static final class JitClock {
        private final java.lang.management.CompilationMXBean bean = java.lang.management.ManagementFactory.getCompilationMXBean();
        private long last = time();

        boolean busySinceLastAsked() {
            long now = time();
            boolean busy = now > last;
            last = now;
            return busy;
        }

        private long time() {
            return bean != null && bean.isCompilationTimeMonitoringSupported() ? bean.getTotalCompilationTime() : 0;
        }
    }

    private final GangScheduler core;
    private final ExtenderVerbs verbs;
    private final String schedulerName;
    private final boolean gangMarker;
    private final List<String> nodeNames = new ArrayList<>();
    private int filtersFit;
    private int filtersOther;
    private int bindsBound;
    private int bindsOther;

    private VerbWarmUp(SchedulerConfig config, boolean gangMarker) {
        Binder bindsNothing = (pod, node) -> CompletableFuture.completedFuture(null);
        // the extender's own scoring and node picking; nothing here waits for a queue gate or ever preempts
        SchedulerConfig own = config.withPreemption(PreemptionSettings.OFF).withQueueGate(QueueGate.OFF);
        this.core = new GangScheduler(own, bindsNothing, new AllocationJournal(1024, InstantSource.system()), System::nanoTime);
        this.verbs = new ExtenderVerbs(core, BIND_WAIT, gangMarker, Duration.ZERO, new FilterErrors(new io.prometheus.client.CollectorRegistry()));
        this.schedulerName = config.schedulerName();
        this.gangMarker = gangMarker;
    }

    /**
     * One run over a core of its own, configured as {@code config} (its preemption and queue gate off) and with
     * {@code gangMarker} as the extender's verbs are.
     *
     * @throws IllegalStateException when an answer is not the one a cluster with room gives (a bug to report, not a
     *                               reason to keep the extender from serving: the caller logs it and goes on)
     */
    public static Result run(SchedulerConfig config, boolean gangMarker, Size size) {
        long from = System.nanoTime();
        VerbWarmUp w = new VerbWarmUp(config, gangMarker);
        w.cluster(size);
        // single pods and gangs interleaved, round after round, so that every path stays in use until the JIT has compiled
        // it: a method queued for compiling is dropped from the queue when it is no longer called by its turn, and at start
        // the queue is long (the first sync's code is compiled at the same time). So the rounds go on while the JIT is
        // still busy, up to three times the size asked for.
        int rounds = Math.max(1, size.gangs());
        int perRound = size.singlePods() / rounds;
        JitClock jit = new JitClock();
        try (ExecutorService waits = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int round = 0; round < rounds || (round < MORE_ROUNDS * rounds && jit.busySinceLastAsked()); round++) {
                for (int i = 0; i < perRound + (round < rounds && round < size.singlePods() % rounds ? 1 : 0); i++) {
                    w.singlePod("single-" + round + "-" + i);
                }
                if (size.gangs() > 0) {
                    w.gang("gang-" + round, size.gangSize(), waits);
                }
            }
        }
        Result r = new Result(w.filtersFit, w.filtersOther, w.bindsBound, w.bindsOther, Duration.ofNanos(System.nanoTime() - from));
        if (r.filtersOther() > 0 || r.bindsOther() > 0) {
            throw new IllegalStateException("warm-up answered otherwise than a cluster with room does: " + r);
        }
        return r;
    }

    private void cluster(Size size) {
        core.upsertQueue(QueueSpec.open(PodGroupSpec.DEFAULT_QUEUE, null));
        Resources allocatable = Resources.builder().set(ResourceNames.CPU, 32_000).set(ResourceNames.MEMORY, 128L << 30)
                .set(ResourceNames.PODS, 110).build(); // 32 cpu, 128Gi and the kubelet's default limit of 110 pods
        for (int i = 0; i < size.nodes(); i++) {
            String name = NAMESPACE + "-node-" + i;
            nodeNames.add(name);
            core.upsertNode(Node.of(name, allocatable));
        }
        core.markSynced();
    }

    /** kube-scheduler filters the pod, Muster picks its node, kube-scheduler binds it and the informer shows it bound. */
    private void singlePod(String name) {
        byte[] body = filterRequest(name, null);
        String node = filter(body);
        if (node != null) {
            core.upsertPod(seen(body).withNode(node));
        }
    }

    /** Each member filtered onto its slot, then the whole gang's binds held until the last arrives, as kube-scheduler's are. */
    private void gang(String group, int size, ExecutorService waits) {
        core.upsertPodGroup(PodGroupSpec.of(new GangKey(NAMESPACE, group), size, PodGroupSpec.DEFAULT_QUEUE));
        List<byte[]> bodies = new ArrayList<>(size);
        for (int m = 0; m < size; m++) {
            bodies.add(filterRequest(group + "-" + m, group)); // a Job creates its gang's pods before kube-scheduler asks about them
        }
        List<String> nodes = new ArrayList<>(size);
        for (byte[] body : bodies) {
            nodes.add(filter(body));
        }
        List<Future<ExtenderVerbs.Reply>> binds = new ArrayList<>(size);
        for (int m = 0; m < size; m++) {
            String node = nodes.get(m);
            if (node != null) {
                String name = group + "-" + m;
                binds.add(waits.submit(() -> verbs.bind(bindRequest(name, node))));
            }
        }
        for (int m = 0; m < binds.size(); m++) {
            ExtenderVerbs.Reply reply;
            try {
                reply = binds.get(m).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("warm-up interrupted", e);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new IllegalStateException("warm-up bind failed", e.getCause());
            }
            if (reply.outcome().equals("bound")) {
                bindsBound++;
            } else {
                bindsOther++;
            }
        }
        for (int m = 0; m < size; m++) {
            if (nodes.get(m) != null) {
                core.upsertPod(seen(bodies.get(m)).withNode(nodes.get(m)));
            }
        }
    }

    /**
     * The filter's answer, counted; the node kube-scheduler would bind the pod to (the one Muster picked, a gang member's
     * slot, or with {@code --pick-node=false} the first that fits), or null.
     */
    private String filter(byte[] body) {
        ExtenderVerbs.Reply reply = verbs.filter(body);
        String node = reply.outcome().equals("fit") ? firstNode(reply.body()) : null;
        if (node != null) {
            filtersFit++;
        } else {
            filtersOther++;
        }
        return node;
    }

    /** The pod as the informer shows it before kube-scheduler asks about it: pending, of this extender's profile. */
    private dev.muster.core.model.Pod seen(byte[] filterRequest) {
        return WireDecoder.decodeExtenderArgs(filterRequest).pod().pod().withNode(null).asInCluster(schedulerName, false);
    }

    /**
     * A filter request as kube-scheduler sends it with {@code nodeCacheCapable} (the pod, then the candidates' names), for a
     * pod of 100m and 128Mi; a gang member names its group in Volcano's annotation and, with the gang marker, requests
     * the marker resource. The informer is shown the pod first.
     */
    private byte[] filterRequest(String name, String group) {
        StringBuilder b = new StringBuilder(64 + nodeNames.size() * 32);
        b.append("{\"Pod\":{\"metadata\":{\"name\":\"").append(name).append("\",\"namespace\":\"").append(NAMESPACE)
                .append("\",\"uid\":\"").append(uid(name)).append("\",\"resourceVersion\":\"1\"");
        if (group != null) {
            b.append(",\"annotations\":{\"scheduling.k8s.io/group-name\":\"").append(group).append("\"}");
        }
        b.append("},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"warm-up\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"");
        if (group != null && gangMarker) {
            b.append(",\"").append(ResourceNames.GANG_MARKER).append("\":\"0\"},\"limits\":{\"").append(ResourceNames.GANG_MARKER).append("\":\"0\"");
        }
        b.append("}}}],\"schedulerName\":\"").append(schedulerName).append("\",\"priority\":0},\"status\":{\"phase\":\"Pending\"}},")
                .append("\"Nodes\":null,\"NodeNames\":[");
        for (int i = 0; i < nodeNames.size(); i++) {
            b.append(i == 0 ? "\"" : ",\"").append(nodeNames.get(i)).append('"');
        }
        byte[] body = b.append("]}").toString().getBytes(StandardCharsets.UTF_8);
        core.upsertPod(seen(body));
        return body;
    }

    private static byte[] bindRequest(String name, String node) {
        return ("{\"PodName\":\"" + name + "\",\"PodNamespace\":\"" + NAMESPACE + "\",\"PodUID\":\"" + uid(name) + "\",\"Node\":\"" + node + "\"}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String uid(String name) {
        return NAMESPACE + "-" + name;
    }

    /** The first name in a filter answer's {@code NodeNames} (the node kube-scheduler binds to when it is the only one), or null. */
    static String firstNode(byte[] filterAnswer) {
        String json = new String(filterAnswer, StandardCharsets.UTF_8);
        String key = "\"NodeNames\":[\"";
        int from = json.indexOf(key);
        if (from < 0) {
            return null;
        }
        from += key.length();
        int to = json.indexOf('"', from);
        return to < 0 ? null : json.substring(from, to);
    }
}
