package dev.muster.server.provision;

import dev.muster.common.kube.PacedWatches;
import dev.muster.core.model.GangKey;
import dev.muster.core.provision.Phase;
import dev.muster.core.provision.Provisioning;
import dev.muster.core.scheduler.GangScheduler;
import dev.muster.core.scheduler.GangView;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.ListerWatcher;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1APIResource;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watchable;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.options.ListOptions;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.GaugeMetricFamily;
import io.prometheus.client.Histogram;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Runs all-or-nothing scale-up against the API: finds whether the ProvisioningRequest API is served (asking again every
 * {@link #RECHECK} until it is), watches Muster's requests (label {@value RequestObjects#MANAGED_BY}={@value
 * RequestObjects#MUSTER}) and tells {@link Provisioning} what they say, and every {@link #PERIOD}, while this process
 * leads and its first sync is done: logs what the core's tick found about its gangs ({@link GangScheduler#heldForNodes}), tells
 * {@link Provisioning} which gangs are gone (their PodGroup is no longer known), and creates and deletes what it hands out.
 *
 * <p>A restarted (or newly leading) extender makes no second request: the informer's first list, which adopts the
 * requests that exist, completes before {@link Provisioning#listed} lets any gang ask, and request names are fixed per
 * gang and attempt.
 *
 * <p><b>Threads.</b> One loop thread does all API writes and calls into the core; the informer's thread only reports to
 * {@link Provisioning} (thread-safe). Metrics read {@link Provisioning}'s copies.
 */
public final class ProvisionSync implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ProvisionSync.class.getName());
    static final Duration PERIOD = Duration.ofSeconds(1);
    static final Duration RECHECK = Duration.ofMinutes(1);

    private final ApiClient requests;
    private final ApiClient watches;
    private final GangScheduler scheduler;
    private final Provisioning provisioning;
    private final BooleanSupplier leading;
    private final KubeProvisionRequests writer;
    private final Histogram seconds;
    private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("muster-provisioning").factory());
    // ---- confined to the loop thread ----
    private SharedInformerFactory factory;
    private SharedIndexInformer<ProvisioningRequestObject> informer;
    private long nextDiscovery;
    private boolean listedOnce;
    private final Map<GangKey, String> told = new java.util.HashMap<>(); // the reasons last logged
    private volatile boolean served;

    public ProvisionSync(ApiClient requests, ApiClient watches, GangScheduler scheduler, Provisioning provisioning, BooleanSupplier leading,
                         CollectorRegistry registry) {
        this.requests = requests;
        this.watches = watches;
        this.scheduler = scheduler;
        this.provisioning = provisioning;
        this.leading = leading;
        this.writer = new KubeProvisionRequests(requests, provisioning.settings());
        this.seconds = Histogram.build("muster_provisioning_seconds",
                        "Seconds from creating a ProvisioningRequest to its Provisioned condition.")
                .buckets(5, 15, 30, 60, 120, 300, 600, 1200, 1800).register(registry);
        new Collector() {
            @Override
            public List<MetricFamilySamples> collect() {
                GaugeMetricFamily byPhase = new GaugeMetricFamily("muster_provisioning_requests",
                        "Gangs' ProvisioningRequests by phase (Requested, Accepted, Provisioned, Done, Failed).", List.of("phase"));
                for (Map.Entry<Phase, Integer> e : provisioning.counts().entrySet()) {
                    byPhase.addMetric(List.of(e.getKey().word()), e.getValue());
                }
                GaugeMetricFamily api = new GaugeMetricFamily("muster_provisioning_api_served",
                        "1 when the API server serves autoscaling.x-k8s.io/v1 provisioningrequests.", served ? 1 : 0);
                return List.of(byPhase, api);
            }
        }.register(registry);
    }

    /** Starts the loop (discovery first). */
    public void start() {
        loop.scheduleWithFixedDelay(this::step, 0, PERIOD.toMillis(), TimeUnit.MILLISECONDS);
        scheduler.provisioning(provisioning);
    }

    /** Whether the ProvisioningRequest API was found served. */
    public boolean served() {
        return served;
    }

    private void step() {
        try {
            long now = millis();
            if (informer == null) {
                if (now - nextDiscovery >= 0) {
                    nextDiscovery = now + RECHECK.toMillis();
                    if (discover()) {
                        served = true;
                        startInformer();
                    }
                }
                return;
            }
            if (!informer.hasSynced()) {
                return;
            }
            if (!listedOnce) {
                listedOnce = true;
                provisioning.listed();
            }
            if (!leading.getAsBoolean() || !scheduler.isSynced()) {
                return;
            }
            report(scheduler.heldForNodes()); // the core's tick asks about its gangs (GangScheduler#heldForNodes)
            for (GangKey g : provisioning.gangs()) {
                GangView v = scheduler.gang(g);
                if (v == null || v.queue() == null) {
                    provisioning.gangGone(g);
                }
            }
            for (Provisioning.Work w : provisioning.drain()) {
                apply(w);
            }
            provisioning.drainProvisionedSeconds().forEach(seconds::observe);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "provisioning step failed; trying again in " + PERIOD.toSeconds() + "s", e);
        }
    }

    /** Logs what each gang waits for when it changes, and when a gang is let go. */
    private void report(Map<GangKey, String> reasons) {
        for (Map.Entry<GangKey, String> e : reasons.entrySet()) {
            if (!e.getValue().equals(told.get(e.getKey()))) {
                LOG.log(System.Logger.Level.INFO, "gang " + e.getKey() + " is held: " + e.getValue());
            }
        }
        for (GangKey g : told.keySet()) {
            if (!reasons.containsKey(g)) {
                LOG.log(System.Logger.Level.INFO, "gang " + g + " is no longer held for nodes");
            }
        }
        told.clear();
        told.putAll(reasons);
    }

    private void apply(Provisioning.Work w) {
        switch (w) {
            case Provisioning.Work.Create c -> {
                String why = writer.create(c);
                if (why != null) {
                    LOG.log(System.Logger.Level.WARNING, "creating ProvisioningRequest " + c.gang().namespace() + "/" + c.name() + " failed: " + why);
                    provisioning.createFailed(c.gang(), c.name(), why, millis());
                }
            }
            case Provisioning.Work.Delete d -> {
                String why = writer.delete(d);
                if (why != null) {
                    LOG.log(System.Logger.Level.WARNING, "deleting ProvisioningRequest " + d.gang().namespace() + "/" + d.name() + " failed: " + why
                            + "; trying again");
                    provisioning.again(d);
                }
            }
        }
    }

    private boolean discover() {
        try {
            for (V1APIResource r : new CustomObjectsApi(requests).getAPIResources(RequestObjects.GROUP, RequestObjects.VERSION).execute().getResources()) {
                if (RequestObjects.PLURAL.equals(r.getName())) {
                    LOG.log(System.Logger.Level.INFO, "all-or-nothing scale-up on: " + RequestObjects.API_VERSION + " " + RequestObjects.PLURAL + " is served");
                    return true;
                }
            }
            LOG.log(System.Logger.Level.WARNING, RequestObjects.API_VERSION + " serves no " + RequestObjects.PLURAL + ": all-or-nothing scale-up waits for it"
                    + " (looking again every " + RECHECK.toMinutes() + "m)");
        } catch (ApiException e) {
            LOG.log(System.Logger.Level.WARNING, (e.getCode() == 404 ? RequestObjects.API_VERSION + " is not served (install cluster-autoscaler's "
                    + "ProvisioningRequest CRD)" : "discovering " + RequestObjects.API_VERSION + " failed: HTTP " + e.getCode())
                    + ": all-or-nothing scale-up waits for it (looking again every " + RECHECK.toMinutes() + "m)");
        }
        return false;
    }

    private void startInformer() {
        GenericKubernetesApi<ProvisioningRequestObject, ProvisioningRequestList> api = KubeProvisionRequests.api(watches);
        ListerWatcher<ProvisioningRequestObject, ProvisioningRequestList> ours = new ListerWatcher<>() {
            @Override
            public ProvisioningRequestList list(CallGeneratorParams params) throws ApiException {
                return api.list(options(params)).throwsApiException().getObject();
            }

            @Override
            public Watchable<ProvisioningRequestObject> watch(CallGeneratorParams params) throws ApiException {
                return api.watch(options(params));
            }
        };
        factory = new SharedInformerFactory(watches);
        informer = PacedWatches.informer(factory, ours, ProvisioningRequestObject.class, RequestObjects.PLURAL, Duration.ofMinutes(10).toMillis(),
                (type, t) -> LOG.log(System.Logger.Level.WARNING, "watching " + RequestObjects.PLURAL + ": " + t));
        informer.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(ProvisioningRequestObject o) {
                seen(o);
            }

            @Override
            public void onUpdate(ProvisioningRequestObject before, ProvisioningRequestObject o) {
                seen(o);
            }

            @Override
            public void onDelete(ProvisioningRequestObject o, boolean finalStateUnknown) {
                GangKey g = RequestObjects.gangOf(o);
                if (g != null) {
                    provisioning.requestDeleted(g, name(o), millis());
                }
            }
        });
        factory.startAllRegisteredInformers();
    }

    private void seen(ProvisioningRequestObject o) {
        GangKey g = RequestObjects.gangOf(o);
        if (g != null) {
            provisioning.observed(g, name(o), RequestObjects.status(o), millis());
        }
    }

    private static String name(KubernetesObject o) {
        return o.getMetadata().getName();
    }

    private static ListOptions options(CallGeneratorParams params) {
        ListOptions options = new ListOptions();
        options.setResourceVersion(params.resourceVersion);
        options.setTimeoutSeconds(params.timeoutSeconds);
        options.setLabelSelector(RequestObjects.MANAGED_BY + "=" + RequestObjects.MUSTER);
        return options;
    }

    /** The clock {@link Provisioning} and the core's hold share: monotonic milliseconds. */
    static long millis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime());
    }

    @Override
    public void close() {
        loop.shutdownNow();
        try {
            loop.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (factory != null) {
            factory.stopAllRegisteredInformers();
        }
    }
}
