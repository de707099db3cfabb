package dev.muster.server.sync;

import dev.muster.common.kube.GangApiDiscovery;
import dev.muster.common.kube.GangApiWatcher;
import dev.muster.common.kube.InitialSync;
import dev.muster.common.kube.KubeDisruptionBudget;
import dev.muster.common.kube.KubeWorkload;
import dev.muster.common.kube.RawCustomObject;
import dev.muster.common.kube.SlimListerWatcher;
import dev.muster.common.kube.PacedWatches;
import dev.muster.common.kube.VolcanoCrds;
import dev.muster.common.kube.VolcanoPodGroup;
import dev.muster.common.kube.VolcanoQueue;
import dev.muster.core.scheduler.ClusterSink;
import dev.muster.server.evict.KubeDisruptionBudgets;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.informer.cache.Indexer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@link ClusterSink} in step with the cluster: client-java shared informers (list, then watch, with a
 * periodic resync) over Nodes and Pods in all namespaces (and, with preemption, PodDisruptionBudgets into a
 * {@link KubeDisruptionBudgets}), plus the PodGroups of each gang API (Volcano's with its
 * Queues, Kubernetes' with its Workloads, scheduler-plugins') when API discovery finds it served, now or later
 * ({@link GangApiWatcher}) — translated by
 * {@link ClusterEventHandler}. After every informer has listed and the handler has processed what was listed,
 * {@link ClusterSink#markSynced()} is called exactly once and {@link #synced()} completes (readiness gates on it).
 * A restarted process rebuilds the sink the same way from a fresh list.
 *
 * <p>Lifecycle: construct, {@link #start()} once, {@link #close()} once. Threads: client-java runs one reflector and
 * one handler thread per informer (events of one resource type arrive in order on one thread); a daemon thread polls
 * the initial-sync barrier until it fires. Thread-safe.
 */
public final class ClusterSync implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClusterSync.class);
    /** Default resync: re-deliver the cache to the handler so a dropped update heals without a new list. */
    public static final Duration DEFAULT_RESYNC = Duration.ofMinutes(10);
    static final Duration BARRIER_POLL = Duration.ofMillis(50);

    private final SharedInformerFactory factory;
    private final GangApiWatcher gangApis;
    private final ClusterSink sink;
    private final ClusterEventHandler handler;
    private final InitialSync initialSync;
    private final ListWatchErrors errors = new ListWatchErrors();
    private final boolean watchesBudgets;
    private final CompletableFuture<Void> synced = new CompletableFuture<>();
    private final ScheduledExecutorService barrierPoller;
    private final Object lock = new Object();
    private ScheduledFuture<?> barrierTask; // guarded by lock
    private boolean started; // guarded by lock
    private boolean closed; // guarded by lock

    /**
     * @param watchClient an ApiClient without a read timeout ({@link dev.muster.common.kube.KubeClients#watches()})
     * @param sink        the scheduling core
     * @param resync      how often the informers re-deliver their caches (zero disables)
     */
    public ClusterSync(ApiClient watchClient, ClusterSink sink, Duration resync) {
        this(watchClient, sink, resync, dev.muster.core.scheduler.SchedulerConfig.DEFAULT_SCHEDULER_NAME);
    }

    /** @param schedulerName pods of other schedulers are only accounted for, never gang members */
    public ClusterSync(ApiClient watchClient, ClusterSink sink, Duration resync, String schedulerName) {
        this(watchClient, sink, resync, schedulerName, GangApiWatcher.DEFAULT_RECHECK);
    }

    /** @param apiRecheck how often API discovery looks again for gang APIs not served yet */
    public ClusterSync(ApiClient watchClient, ClusterSink sink, Duration resync, String schedulerName, Duration apiRecheck) {
        this(watchClient, sink, resync, schedulerName, apiRecheck, null);
    }

    /**
     * @param budgets when not null, PodDisruptionBudgets (all namespaces) are watched into it too, part of the first
     *                sync, and it reads victims' labels from the pod cache (preemption on)
     */
    public ClusterSync(ApiClient watchClient, ClusterSink sink, Duration resync, String schedulerName, Duration apiRecheck,
                       KubeDisruptionBudgets budgets) {
        Objects.requireNonNull(watchClient, "watchClient");
        this.sink = Objects.requireNonNull(sink, "sink");
        this.handler = new ClusterEventHandler(sink, schedulerName);
        this.factory = new SharedInformerFactory(watchClient);
        long resyncMillis = resync.toMillis();

        List<InitialSync.Source> sources = new ArrayList<>();

        SharedIndexInformer<V1Node> nodes = PacedWatches.informer(factory, SlimListerWatcher.nodes(watchClient), V1Node.class, "nodes",
                resyncMillis, (type, t) -> errors.failed("nodes", t));
        // pods and nodes are decoded slim as they are read (SlimPodProto/SlimNodeProto, or the JSON ones): the pod cache is the largest memory user and pod events the
        // most frequent, and client-java's own decoding of a full V1Pod was half of the extender's CPU in the real loop
        SharedIndexInformer<V1Pod> pods = PacedWatches.informer(factory, SlimListerWatcher.pods(watchClient), V1Pod.class, "pods",
                resyncMillis, (type, t) -> errors.failed("pods", t));

        sources.add(InitialSync.Source.of("nodes", nodes));
        sources.add(InitialSync.Source.of("pods", pods));
        if (budgets != null) {
            SharedIndexInformer<KubeDisruptionBudget> pdbs = PacedWatches.informer(factory, KubeDisruptionBudget.api(watchClient),
                    KubeDisruptionBudget.class, KubeDisruptionBudget.RESOURCE, resyncMillis, (type, t) -> errors.failed(KubeDisruptionBudget.RESOURCE, t));
            sources.add(InitialSync.Source.of(KubeDisruptionBudget.RESOURCE, pdbs));
            pdbs.addEventHandler(adapter(KubeDisruptionBudget.RESOURCE, (KubeDisruptionBudget old, KubeDisruptionBudget b) -> budgets.upserted(b),
                    budgets::deleted));
            Indexer<V1Pod> podCache = pods.getIndexer();
            budgets.readPodsFrom(pod -> KubeDisruptionBudgets.factsOf(pod, podCache.getByKey(pod.namespace() + "/" + pod.name())));
        }
        this.watchesBudgets = budgets != null;
        // every gang API, Volcano's included, is watched where (and once) discovery finds it served
        this.gangApis = new GangApiWatcher(watchClient, factory, resyncMillis, new GangApiDiscovery(watchClient),
                (api, source, informer) -> watchGangApi(api, source, informer), this::watchWorkloads, this::watchQueues, errors::failed,
                apiRecheck, "cluster-sync");
        sources.addAll(gangApis.registerServed()); // their handlers are added now; events flow once start() starts them
        this.initialSync = new InitialSync(sources, this::onInitialSync);

        nodes.addEventHandler(adapter("nodes", (old, n) -> handler.nodeUpserted(n), handler::nodeDeleted));
        pods.addEventHandler(adapter("pods", handler::podUpserted, handler::podDeleted));

        this.barrierPoller = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "cluster-sync-barrier");
            t.setDaemon(true);
            return t;
        });
    }

    public ClusterSync(ApiClient watchClient, ClusterSink sink) {
        this(watchClient, sink, DEFAULT_RESYNC);
    }

    /** Starts the informers; returns at once. */
    public void start() {
        synchronized (lock) {
            if (started || closed) {
                throw new IllegalStateException("cluster sync can be started once");
            }
            started = true;
            factory.startAllRegisteredInformers();
            gangApis.start();
            barrierTask = barrierPoller.scheduleWithFixedDelay(this::pollBarrier, BARRIER_POLL.toMillis(), BARRIER_POLL.toMillis(),
                    TimeUnit.MILLISECONDS);
        }
        log.info("cluster sync started: nodes, pods{} (all namespaces){}", watchesBudgets ? ", poddisruptionbudgets" : "",
                gangApis.watched().isEmpty() ? "; no gang API served yet" : ", podgroups of " + gangApis.watched());
    }

    /** Completes once the sink reflects the first full list of every resource (after {@code markSynced}). */
    public CompletionStage<Void> synced() {
        return synced.copy();
    }

    public boolean isSynced() {
        return synced.isDone();
    }

    /**
     * The most recent list/watch failure of any resource, as logged (e.g. "listing/watching nodes failed:
     * java.net.ConnectException: …"), or null when none failed yet. Readiness quotes it while the first sync waits.
     */
    public String lastFailure() {
        return errors.latest();
    }

    /** Objects skipped because they could not be converted or the sink rejected them (see {@link ClusterEventHandler}). */
    public long skippedObjects() {
        return handler.skippedObjects();
    }

    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            gangApis.close();
            errors.stop(); // stopping interrupts the informers' calls: no "failed" lines at shutdown
            if (barrierTask != null) {
                barrierTask.cancel(false);
            }
            if (started) {
                factory.stopAllRegisteredInformers();
            }
        }
        barrierPoller.shutdownNow();
    }

    private void pollBarrier() {
        try {
            if (initialSync.poll()) {
                synchronized (lock) {
                    if (barrierTask != null) {
                        barrierTask.cancel(false);
                    }
                }
            }
        } catch (RuntimeException e) {
            log.error("initial sync check failed; retrying", e);
        }
    }

    private void onInitialSync() {
        try {
            sink.markSynced();
        } catch (RuntimeException e) {
            log.error("the scheduling core failed to mark the initial sync", e);
        }
        log.info("initial cluster sync done ({} objects skipped)", handler.skippedObjects());
        synced.complete(null);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void watchGangApi(dev.muster.core.model.GangApi api, String source, SharedIndexInformer<? extends RawCustomObject> informer) {
        ((SharedIndexInformer) informer).addEventHandler(adapter(source, (RawCustomObject old, RawCustomObject pg) -> handler.podGroupUpserted(api, pg),
                (RawCustomObject pg) -> handler.podGroupDeleted(api, pg)));
    }

    private void watchQueues(String source, SharedIndexInformer<VolcanoQueue> informer) {
        informer.addEventHandler(adapter(source, (VolcanoQueue old, VolcanoQueue q) -> handler.queueUpserted(q), handler::queueDeleted));
    }

    private void watchWorkloads(String source, SharedIndexInformer<KubeWorkload> informer) {
        handler.watchingWorkloads();
        informer.addEventHandler(adapter(source, (KubeWorkload old, KubeWorkload w) -> handler.workloadUpserted(w), handler::workloadDeleted));
    }

    private <T extends KubernetesObject> ResourceEventHandler<T> adapter(String source, BiConsumer<T, T> upsert, Consumer<T> delete) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                upsert.accept(null, obj);
                seen(obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                upsert.accept(oldObj, newObj);
                seen(newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                delete.accept(obj);
                seen(obj);
            }

            private void seen(T obj) {
                if (!initialSync.isDone() && obj != null && obj.getMetadata() != null) {
                    initialSync.seen(source, Caches.metaNamespaceKeyFunc(obj));
                }
            }
        };
    }
}
