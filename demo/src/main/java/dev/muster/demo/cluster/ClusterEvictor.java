package dev.muster.demo.cluster;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.EvictionOutcome;
import dev.muster.core.preempt.Evictor;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The embedded cluster's Eviction API, as the extender's evictor. An eviction of a pod that holds room deletes it at
 * once (the embedded kubelet stops a container with no grace period) and then, as the pod's controller would (a Job, a
 * Deployment), creates a replacement: the same gang, requests, priority and run time, named {@code <name>-r<n>} with a
 * new uid, pending, to be scheduled again. A pod that is gone, or has finished, answers {@link EvictionOutcome.Gone}.
 *
 * <p><b>Budgets.</b> The embedded cluster has no PodDisruptionBudgets: every dry run ({@link #check}) passes and no
 * eviction is refused by a budget. The extender's own rules still hold (never below a gang's {@code minMember}, the
 * victims' minimum run time, reclaim never below a queue's fair share).
 *
 * <p>Thread-safety: each eviction runs on its own virtual thread (the {@link Evictor} contract: never block the
 * caller); the cluster's lock makes the delete and the create each atomic. {@code this} guards the log.
 */
public final class ClusterEvictor implements Evictor, AutoCloseable {
    private static final Pattern REPLACEMENT = Pattern.compile("-r\\d+$");

    /** One pod evicted at simulated time {@code at}, for {@code why}; {@code replacement} is the pod its controller created. */
    public record Eviction(long at, PodId pod, GangKey gang, String node, PodId replacement, String why) {}

    private final EmbeddedCluster cluster;
    private final LongSupplier clock;
    private final ExecutorService evictions = Executors.newVirtualThreadPerTaskExecutor();
    private final List<Eviction> log = new ArrayList<>();
    private long replacements;

    /** @param clock simulated nanoseconds, for the log */
    public ClusterEvictor(EmbeddedCluster cluster, LongSupplier clock) {
        this.cluster = Objects.requireNonNull(cluster, "cluster");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public CompletionStage<EvictionOutcome> evict(PodId pod, String why) {
        CompletableFuture<EvictionOutcome> out = new CompletableFuture<>();
        try {
            evictions.execute(() -> out.complete(evictNow(pod, why)));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            out.complete(new EvictionOutcome.Failed("the embedded cluster is shutting down"));
        }
        return out;
    }

    /** Deletes the pod and creates its replacement; the outcome the API server would give. Never throws. */
    EvictionOutcome evictNow(PodId pod, String why) {
        ClusterPod p = cluster.pod(pod.uid());
        if (p == null || !p.holdsResources()) {
            return new EvictionOutcome.Gone();
        }
        try {
            cluster.deletePod(pod.uid());
        } catch (ClusterException e) {
            return new EvictionOutcome.Gone();
        }
        PodId replacement;
        synchronized (this) {
            long n = ++replacements;
            String base = REPLACEMENT.matcher(p.id().name()).replaceFirst("");
            replacement = new PodId(p.uid() + "-r" + n, p.id().namespace(), base + "-r" + n);
        }
        try {
            cluster.createPod(replacement, p.requests(), p.gang(), p.schedulerName(), p.priority(), p.runFor());
        } catch (ClusterException e) {
            replacement = null; // cannot happen: the name and uid are new
        }
        synchronized (this) {
            log.add(new Eviction(clock.getAsLong(), pod, p.gang(), p.nodeName(), replacement, why));
        }
        return new EvictionOutcome.Evicted();
    }

    /** Every eviction so far, in order. */
    public synchronized List<Eviction> evictions() {
        return List.copyOf(log);
    }

    @Override
    public void close() {
        evictions.shutdownNow();
    }
}
