package dev.muster.common.kube;

import dev.muster.core.model.GangApi;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the PodGroups of the gang APIs — those that come with Kubernetes or with scheduler-plugins ({@link
 * GangApi#KUBERNETES}, {@link GangApi#SCHEDULER_PLUGINS}) and, when the caller passes {@link QueueHandlers}, Volcano's
 * PodGroups and Queues (whose CRDs the chart installs, but an install may skip them) — when, and as soon as, the API
 * server serves them. If the very first discovery fails, Volcano's are watched anyway (as the chart installs them; their
 * lists retry), so a process that starts while the API server is briefly unreachable does not sync without them.
 *
 * <p>{@link #registerServed()} asks {@link GangApiDiscovery} once and creates an informer (on the caller's factory,
 * not started) for each served API, at the version served; the caller includes the returned sources in its first-sync
 * barrier. An API that is not served is logged once, at info, and skipped. {@link #start()} then re-asks every
 * {@code recheck}: an API that appears later gets its informer, started at once; one that disappears keeps its
 * informer (its list/watch errors are the caller's, rate-limited there) and is logged once. A served version that
 * changes (an upgrade from {@code v1alpha2} to {@code v1beta1}) is logged; the running informer keeps its version until
 * the process restarts.
 *
 * <p>With Kubernetes' PodGroups come its Workloads (same group-version), whose templates those PodGroups refer to: when
 * the caller passes {@link WorkloadHandlers} and {@code workloads} are served, a Workload informer is created too (a
 * first-sync source like the others, so no PodGroup is judged before the Workloads are listed).
 *
 * <p>Thread-safe: {@link #registerServed()} runs once before {@link #start()}; afterwards the single recheck thread is
 * the only one that changes {@code watched} and {@code missingLogged} (guarded by {@code this}).
 */
public final class GangApiWatcher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(GangApiWatcher.class);
    /** How often discovery is repeated so an API installed later is picked up. */
    public static final Duration DEFAULT_RECHECK = Duration.ofSeconds(30);
    static final Set<GangApi> WATCHED_APIS = EnumSet.of(GangApi.KUBERNETES, GangApi.SCHEDULER_PLUGINS);

    /** Receives each new informer, to add its event handlers. */
    public interface Handlers {
        void watch(GangApi api, String source, SharedIndexInformer<? extends RawCustomObject> informer);
    }

    /** Receives the Workload informer, created once Kubernetes' PodGroups and Workloads are served. */
    public interface WorkloadHandlers {
        void watch(String source, SharedIndexInformer<KubeWorkload> informer);
    }

    /** Receives the Volcano Queue informer, created with Volcano's PodGroups' one when Volcano's CRDs are served. */
    public interface QueueHandlers {
        void watch(String source, SharedIndexInformer<VolcanoQueue> informer);
    }

    /** {@code queues.scheduling.volcano.sh}, for logs and first-sync sources. */
    public static final String QUEUES_SOURCE = VolcanoCrds.QUEUES + "." + VolcanoCrds.GROUP;

    /** {@code workloads.scheduling.k8s.io}, for logs and first-sync sources. */
    public static final String WORKLOADS_SOURCE = GangApiGroups.WORKLOADS + "." + GangApiGroups.KUBERNETES_GROUP;

    private final ApiClient watchClient;
    private final SharedInformerFactory factory;
    private final long resyncMillis;
    private final GangApiDiscovery discovery;
    private final Handlers handlers;
    private final BiConsumer<String, Throwable> listFailed;
    private final Duration recheck;
    private final String processName;
    private final WorkloadHandlers workloadHandlers; // null: Workloads are not watched
    private String workloadsVersion; // guarded by this: the Workload informer's version, null before it exists
    private final QueueHandlers queueHandlers; // null: Volcano is watched by the caller, not here
    private final Set<GangApi> apis;
    private boolean queuesWatched; // guarded by this
    private boolean discoveredOnce; // guarded by this: a discovery (failed or not) has run
    private final Map<GangApi, String> watched = new EnumMap<>(GangApi.class); // guarded by this: api → version
    private final Set<GangApi> missingLogged = EnumSet.noneOf(GangApi.class); // guarded by this
    private final Map<SharedIndexInformer<?>, String> sources = new java.util.IdentityHashMap<>(); // guarded by this: informer → source name
    private boolean discoveryFailureLogged; // guarded by this
    private ScheduledExecutorService rechecks; // guarded by this
    private boolean closed; // guarded by this

    /**
     * @param listFailed   told of each list/watch failure of an informer this creates (resource name, cause)
     * @param processName  for the recheck thread's name
     */
    public GangApiWatcher(ApiClient watchClient, SharedInformerFactory factory, long resyncMillis, GangApiDiscovery discovery,
                          Handlers handlers, BiConsumer<String, Throwable> listFailed, Duration recheck, String processName) {
        this(watchClient, factory, resyncMillis, discovery, handlers, null, null, listFailed, recheck, processName);
    }

    /**
     * @param workloadHandlers told of the Workload informer, created (beside the Kubernetes PodGroups' one) when the
     *                         API server serves {@code workloads} in the PodGroups' group-version; null: not watched
     * @param queueHandlers    told of the Volcano Queue informer; non-null: Volcano's PodGroups and Queues are watched here,
     *                         discovery-gated like the other APIs (null: the caller watches Volcano itself)
     */
    public GangApiWatcher(ApiClient watchClient, SharedInformerFactory factory, long resyncMillis, GangApiDiscovery discovery,
                          Handlers handlers, WorkloadHandlers workloadHandlers, QueueHandlers queueHandlers,
                          BiConsumer<String, Throwable> listFailed, Duration recheck, String processName) {
        this.workloadHandlers = workloadHandlers;
        this.queueHandlers = queueHandlers;
        this.apis = queueHandlers == null ? WATCHED_APIS : EnumSet.allOf(GangApi.class);
        this.watchClient = Objects.requireNonNull(watchClient, "watchClient");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.resyncMillis = resyncMillis;
        this.discovery = Objects.requireNonNull(discovery, "discovery");
        this.handlers = Objects.requireNonNull(handlers, "handlers");
        this.listFailed = Objects.requireNonNull(listFailed, "listFailed");
        this.recheck = Objects.requireNonNull(recheck, "recheck");
        this.processName = processName;
    }

    /** Discovers now and creates (does not start) an informer for each served API; returns them as first-sync sources. */
    public synchronized List<InitialSync.Source> registerServed() {
        List<InitialSync.Source> out = new ArrayList<>();
        for (SharedIndexInformer<? extends RawCustomObject> informer : reconcile()) {
            out.add(InitialSync.Source.of(sourceOf(informer), informer));
        }
        return out;
    }

    /** Starts the periodic recheck (a daemon thread). */
    public synchronized void start() {
        if (closed || rechecks != null) {
            return;
        }
        rechecks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, processName + "-gang-api-discovery");
            t.setDaemon(true);
            return t;
        });
        rechecks.scheduleWithFixedDelay(this::recheck, recheck.toMillis(), recheck.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The APIs watched now, with their versions. */
    public synchronized Map<GangApi, String> watched() {
        return Map.copyOf(watched);
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (rechecks != null) {
            rechecks.shutdownNow();
        }
    }

    /** One recheck: informers for newly served APIs are created and started. Never throws. */
    void recheck() {
        try {
            List<SharedIndexInformer<? extends RawCustomObject>> added;
            synchronized (this) {
                if (closed) {
                    return;
                }
                added = reconcile();
            }
            if (!added.isEmpty()) {
                factory.startAllRegisteredInformers(); // starts only the informers not started yet
            }
        } catch (RuntimeException e) {
            log.warn("gang API discovery recheck failed: {}", e.toString());
        }
    }

    private String sourceOf(SharedIndexInformer<?> informer) {
        return sources.get(informer);
    }

    private List<SharedIndexInformer<? extends RawCustomObject>> reconcile() {
        GangApiDiscovery.Result result = discovery.discover();
        boolean first = !discoveredOnce;
        discoveredOnce = true;
        List<SharedIndexInformer<? extends RawCustomObject>> added = new ArrayList<>();
        if (result.failed()) {
            if (!discoveryFailureLogged) {
                discoveryFailureLogged = true;
                log.warn("API discovery failed ({}); gang APIs not watched yet are looked for again every {}s{}", result.failure(),
                        recheck.toSeconds(), first && queueHandlers != null ? " (Volcano's, which the chart installs, are watched meanwhile)" : "");
            }
            if (first && queueHandlers != null) {
                // at start, an API server that cannot tell is assumed to serve what the chart installs: its lists retry
                GangApiDiscovery.Served volcano = new GangApiDiscovery.Served(GangApi.VOLCANO, VolcanoCrds.VERSION, false, Set.of(VolcanoCrds.QUEUES));
                watch(GangApi.VOLCANO, volcano, added);
            }
            return added;
        }
        discoveryFailureLogged = false;
        for (GangApi api : apis) {
            GangApiDiscovery.Served served = result.served().get(api);
            String resource = GangApiGroups.resourceName(api);
            String running = watched.get(api);
            if (served == null) {
                if (missingLogged.add(api)) {
                    log.info("{} is not served by the API server{}; skipped (looked for again every {}s)", resource,
                            running == null ? "" : " any more (watching " + running + " until restart)", recheck.toSeconds());
                }
                continue;
            }
            boolean wasMissing = missingLogged.remove(api);
            if (running != null && !running.equals(served.version()) && wasMissing) {
                log.warn("{} is served at {} now; still watching {} until restart", resource, served.version(), running);
            }
            watch(api, served, added);
        }
        return added;
    }

    /** The informers of a served API not created yet: its PodGroups', and its Workloads' or Queues' where handled. */
    private void watch(GangApi api, GangApiDiscovery.Served served, List<SharedIndexInformer<? extends RawCustomObject>> added) {
        if (api == GangApi.KUBERNETES) {
            watchWorkloads(served, added);
        }
        if (api == GangApi.VOLCANO) {
            watchQueues(served, added);
        }
        if (watched.containsKey(api)) {
            return;
        }
        String resource = GangApiGroups.resourceName(api);
        SharedIndexInformer<? extends RawCustomObject> informer = create(api, served.version(), resource);
        watched.put(api, served.version());
        sources.put(informer, resource);
        handlers.watch(api, resource, informer);
        added.add(informer);
        log.info("watching {}/{} podgroups", GangApiGroups.group(api), served.version());
    }

    /** The Volcano Queue informer, once, when Queues are served beside Volcano's PodGroups. */
    private void watchQueues(GangApiDiscovery.Served served, List<SharedIndexInformer<? extends RawCustomObject>> added) {
        if (queueHandlers == null || queuesWatched || !served.serves(VolcanoCrds.QUEUES)) {
            return;
        }
        SharedIndexInformer<VolcanoQueue> informer = PacedWatches.informer(factory, VolcanoCrds.queues(watchClient), VolcanoQueue.class,
                QUEUES_SOURCE, resyncMillis, (type, t) -> listFailed.accept(QUEUES_SOURCE, t));
        queuesWatched = true;
        sources.put(informer, QUEUES_SOURCE);
        queueHandlers.watch(QUEUES_SOURCE, informer);
        added.add(informer);
        log.info("watching {} queues", VolcanoCrds.API_VERSION);
    }

    /** The Workload informer, once, when Workloads are served beside Kubernetes' PodGroups and the caller handles them. */
    private void watchWorkloads(GangApiDiscovery.Served served, List<SharedIndexInformer<? extends RawCustomObject>> added) {
        if (workloadHandlers == null || workloadsVersion != null || !served.serves(GangApiGroups.WORKLOADS)) {
            return;
        }
        SharedIndexInformer<KubeWorkload> informer = PacedWatches.informer(factory, GangApiGroups.workloads(watchClient, served.version()),
                KubeWorkload.class, WORKLOADS_SOURCE, resyncMillis, (type, t) -> listFailed.accept(WORKLOADS_SOURCE, t));
        workloadsVersion = served.version();
        sources.put(informer, WORKLOADS_SOURCE);
        workloadHandlers.watch(WORKLOADS_SOURCE, informer);
        added.add(informer);
        log.info("watching {}/{} workloads", GangApiGroups.KUBERNETES_GROUP, served.version());
    }

    private SharedIndexInformer<? extends RawCustomObject> create(GangApi api, String version, String resource) {
        return switch (api) {
            case KUBERNETES -> PacedWatches.informer(factory, GangApiGroups.kubernetes(watchClient, version), KubePodGroup.class,
                    resource, resyncMillis, (type, t) -> listFailed.accept(resource, t));
            case SCHEDULER_PLUGINS -> PacedWatches.informer(factory, GangApiGroups.schedulerPlugins(watchClient, version),
                    CoschedulingPodGroup.class, resource, resyncMillis, (type, t) -> listFailed.accept(resource, t));
            case VOLCANO -> PacedWatches.informer(factory, VolcanoCrds.podGroups(watchClient), VolcanoPodGroup.class, resource, resyncMillis,
                    (type, t) -> listFailed.accept(resource, t));
        };
    }
}
