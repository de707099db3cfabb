package dev.muster.controller.sync;

import dev.muster.common.kube.GangApiDiscovery;
import dev.muster.common.kube.GangApiGroups;
import dev.muster.common.kube.GangApiWatcher;
import dev.muster.common.kube.KubeWorkload;
import dev.muster.common.kube.WorkloadTemplates;
import dev.muster.common.kube.GangClaims;
import dev.muster.common.kube.InitialSync;
import dev.muster.common.kube.RawCustomObject;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.common.kube.PacedWatches;
import dev.muster.common.kube.ConversionException;
import dev.muster.common.kube.PodGroupConverter;
import dev.muster.common.kube.SlimListerWatcher;
import dev.muster.common.kube.QueueConverter;
import dev.muster.common.kube.VolcanoCrds;
import dev.muster.common.kube.VolcanoPodGroup;
import dev.muster.common.kube.VolcanoQueue;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.informer.cache.Caches;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's informers: pods in all namespaces (slimmed by {@link MemberPods}), and the PodGroups of each gang API
 * (Volcano's with its Queues, Kubernetes' with its Workloads, scheduler-plugins') when discovery finds it served, now
 * or later ({@link GangApiWatcher}),
 * delivered to a {@link ClusterObserver} — specs through the shared converters, status as the API shows it. Once
 * every first list has been handled ({@link InitialSync}), {@link ClusterObserver#synced()} is called.
 *
 * <p>An object that cannot be converted is skipped with a warning (and counted); it never stops the others.
 * Threads: client-java runs one reflector and one handler thread per informer, so events of one resource arrive in
 * order; a daemon thread polls the first-sync barrier. Lifecycle: construct, {@link #start()} once,
 * {@link #close()}. Thread-safe.
 */
public final class ControllerInformers implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ControllerInformers.class);
    public static final Duration DEFAULT_RESYNC = Duration.ofMinutes(10);

    private final SharedInformerFactory factory;
    private final GangApiWatcher gangApis;
    private final GangClaims claims;
    private final ClusterObserver observer;
    private final InitialSync firstSync;
    private final AtomicLong skipped = new AtomicLong();
    private final WorkloadTemplates templates = new WorkloadTemplates();
    private volatile boolean closing;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "muster-controller-first-sync");
        t.setDaemon(true);
        return t;
    });

    /** @param watchClient an ApiClient without a read timeout ({@code KubeClients.watches()}) */
    public ControllerInformers(ApiClient watchClient, ClusterObserver observer, Duration resync) {
        this(watchClient, observer, resync, new GangClaims(), new GangApiDiscovery(watchClient), GangApiWatcher.DEFAULT_RECHECK);
    }

    /**
     * @param claims     which API's PodGroup each gang is; shared with the status patcher
     * @param discovery  served gang API versions; shared with the status patcher (kept fresh here)
     * @param apiRecheck how often discovery looks again for gang APIs not served yet
     */
    public ControllerInformers(ApiClient watchClient, ClusterObserver observer, Duration resync, GangClaims claims,
                               GangApiDiscovery discovery, Duration apiRecheck) {
        this.observer = observer;
        this.claims = claims;
        this.factory = new SharedInformerFactory(watchClient);
        long resyncMillis = resync.toMillis();
        SharedIndexInformer<V1Pod> pods = PacedWatches.informer(factory, SlimListerWatcher.pods(watchClient), V1Pod.class, "pods",
                resyncMillis, (type, t) -> listFailed("pods", t));
        pods.setTransform(new MemberPods());
        // every gang API, Volcano's included, is watched where (and once) discovery finds it served
        this.gangApis = new GangApiWatcher(watchClient, factory, resyncMillis, discovery, this::watchGangApi, this::watchWorkloads,
                this::watchQueues, this::listFailed, apiRecheck, "muster-controller");
        List<InitialSync.Source> sources = new java.util.ArrayList<>(List.of(InitialSync.Source.of("pods", pods)));
        sources.addAll(gangApis.registerServed());
        this.firstSync = new InitialSync(sources, this::onInitialSync);
        pods.addEventHandler(handler("pods",
                p -> observer.pod(KubeObservations.pod(p)),
                p -> observer.podDeleted(KubeObservations.pod(p).uid())));
    }

    public void start() {
        factory.startAllRegisteredInformers();
        gangApis.start();
        poller.scheduleWithFixedDelay(() -> {
            try {
                if (firstSync.poll()) {
                    poller.shutdown();
                }
            } catch (RuntimeException e) {
                log.error("first-sync check failed; retrying", e);
            }
        }, 50, 50, TimeUnit.MILLISECONDS);
        log.info("informers started: pods (all namespaces){}",
                gangApis.watched().isEmpty() ? "; no gang API served yet" : ", podgroups of " + gangApis.watched());
    }

    /** Objects skipped because they could not be converted. */
    public long skippedObjects() {
        return skipped.get();
    }

    public boolean isSynced() {
        return firstSync.isDone();
    }

    @Override
    public void close() {
        closing = true; // stopping interrupts the informers' calls: those are not failures to report
        gangApis.close();
        poller.shutdownNow();
        factory.stopAllRegisteredInformers();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void watchGangApi(GangApi api, String source, SharedIndexInformer<? extends RawCustomObject> informer) {
        ((SharedIndexInformer) informer).addEventHandler(handler(source, (RawCustomObject pg) -> podGroupSeen(api, pg),
                (RawCustomObject pg) -> podGroupGone(api, pg)));
    }

    private void watchQueues(String source, SharedIndexInformer<VolcanoQueue> informer) {
        informer.addEventHandler(handler(source,
                q -> observer.queue(QueueConverter.toCore(q), KubeObservations.queueStatus(q.getStatus())),
                q -> observer.queueDeleted(QueueConverter.nameOf(q))));
    }

    /** Workload templates fill in what Kubernetes PodGroups leave unset; a Workload event re-resolves the PodGroups naming it. */
    private void watchWorkloads(String source, SharedIndexInformer<KubeWorkload> informer) {
        templates.watching();
        informer.addEventHandler(handler(source, w -> templates.workloadUpserted(w, this::reresolve),
                w -> templates.workloadDeleted(w, this::reresolve)));
    }

    private void reresolve(RawCustomObject pg) {
        try {
            podGroupSeen(GangApi.KUBERNETES, pg);
        } catch (ConversionException | IllegalArgumentException e) {
            skipped.incrementAndGet();
            log.warn("skipping {}: {}", GangApiGroups.resourceName(GangApi.KUBERNETES), e.getMessage());
        }
    }

    /** Every API's PodGroups go through the claims: of two with one name, only the older is the gang. */
    private void podGroupSeen(GangApi api, RawCustomObject pg) {
        if (api == GangApi.KUBERNETES) {
            templates.podGroupUpserted(pg, spec -> claimed(api, pg, spec));
        } else {
            claimed(api, pg, GangApiGroups.toCore(api, pg));
        }
    }

    private void claimed(GangApi api, RawCustomObject pg, PodGroupSpec spec) {
        switch (claims.claim(api, spec, GangApiGroups.createdAt(pg))) {
            case GangClaims.Effect.Upsert u -> observer.podGroup(u.spec(),
                    u.spec() == spec ? KubeObservations.podGroupStatus(api, pg.getStatus()) : null);
            case GangClaims.Effect.Delete d -> observer.podGroupDeleted(d.key());
            case GangClaims.Effect.None n -> { }
        }
    }

    private void podGroupGone(GangApi api, RawCustomObject pg) {
        if (api == GangApi.KUBERNETES) {
            templates.podGroupDeleted(pg, () -> released(api, pg));
        } else {
            released(api, pg);
        }
    }

    private void released(GangApi api, RawCustomObject pg) {
        switch (claims.release(api, PodGroupConverter.keyOf(pg))) {
            case GangClaims.Effect.Upsert u -> observer.podGroup(u.spec(), null);
            case GangClaims.Effect.Delete d -> observer.podGroupDeleted(d.key());
            case GangClaims.Effect.None n -> { }
        }
    }

    private void onInitialSync() {
        log.info("first cluster list handled ({} objects skipped)", skipped.get());
        observer.synced();
    }

    private final Map<String, String> lastFailure = new HashMap<>(); // guarded by itself
    private final Map<String, Long> lastFailureAt = new HashMap<>(); // guarded by lastFailure

    /** Reflectors retry every second: log a failure when it first appears or changes, then once a minute. */
    private void listFailed(String resource, Throwable t) {
        if (closing) {
            return;
        }
        String message = t instanceof ApiException e && e.getCode() != 0
                ? "HTTP " + e.getCode() + (e.getCode() == 404 ? " (is the CRD installed?)" : e.getCode() == 403 ? " (check RBAC: list, watch)" : "")
                : String.valueOf(t.getCause() != null ? t.getCause() : t);
        long now = System.nanoTime();
        synchronized (lastFailure) {
            Long at = lastFailureAt.get(resource);
            if (message.equals(lastFailure.get(resource)) && at != null && now - at < Duration.ofMinutes(1).toNanos()) {
                return;
            }
            lastFailure.put(resource, message);
            lastFailureAt.put(resource, now);
        }
        log.warn("listing/watching {} failed: {}", resource, message);
    }


    private <T extends KubernetesObject> ResourceEventHandler<T> handler(String source, Consumer<T> upsert, Consumer<T> delete) {
        return new ResourceEventHandler<>() {
            @Override
            public void onAdd(T obj) {
                apply(upsert, obj);
            }

            @Override
            public void onUpdate(T oldObj, T newObj) {
                apply(upsert, newObj);
            }

            @Override
            public void onDelete(T obj, boolean deletedFinalStateUnknown) {
                apply(delete, obj);
            }

            private void apply(Consumer<T> action, T obj) {
                try {
                    action.accept(obj);
                } catch (ConversionException | IllegalArgumentException e) {
                    skipped.incrementAndGet();
                    log.warn("skipping {}: {}", source, e.getMessage());
                } catch (RuntimeException e) {
                    // never let it reach the informer: client-java's own report of a failed handler is not logged (simplelogger.properties)
                    skipped.incrementAndGet();
                    log.error("skipping {}: the controller failed to take it in", source, e);
                }
                if (!firstSync.isDone() && obj != null && obj.getMetadata() != null) {
                    firstSync.seen(source, Caches.metaNamespaceKeyFunc(obj));
                }
            }
        };
    }
}
