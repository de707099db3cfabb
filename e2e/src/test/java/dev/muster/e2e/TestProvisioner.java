package dev.muster.e2e;

import com.google.gson.reflect.TypeToken;
import dev.muster.core.time.Backoff;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.util.Watch;
import java.lang.reflect.Type;
import io.kubernetes.client.openapi.models.V1PodTemplate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for cluster-autoscaler in the e2e tests: watches ProvisioningRequests (a list, then a watch from it, listed
 * again whenever the watch ends) and, for the class
 * {@value #ATOMIC}, starts hollow kubelets for all of a request's pods (one 1-cpu node per pod, labelled with the first
 * PodTemplate's nodeSelector) only when it can start all of them within its node budget, else none. It writes the
 * conditions as cluster-autoscaler does: {@code Accepted}, then {@code Provisioned} (reason {@code CapacityIsProvisioned})
 * once it has started the nodes (they register and become Ready after), or {@code Failed} (reason {@code CapacityIsNotFound}) for a request that asks for too much.
 * A request whose template's nodeSelector has {@code provisioner: hold} is only accepted (a request that stays pending).
 * Other classes are left alone. Uses admin credentials, as an autoscaler has its own. Without kube-controller-manager it
 * lifts the not-ready taint of its nodes itself once they are Ready, as the node lifecycle controller would.
 */
final class TestProvisioner implements AutoCloseable {
    static final String ATOMIC = "best-effort-atomic-scale-up.autoscaling.x-k8s.io";
    static final String GROUP = "autoscaling.x-k8s.io";
    static final String PLURAL = "provisioningrequests";
    static final Map<String, String> HOLD = Map.of("provisioner", "hold");

    private final ControlPlane cp;
    private final Kube admin;
    private final int budget;
    /** How long it waits before listing again after a failed list or watch, growing with consecutive failures. */
    private final Backoff backoff;
    private final List<HollowNode> started = new CopyOnWriteArrayList<>();
    private final Set<String> handled = new HashSet<>(); // namespace/name (loop thread only)
    private final ApiClient watches;
    private volatile Watch<?> current;
    private final Thread loop;
    private final Map<String, Long> provisioned = new java.util.concurrent.ConcurrentHashMap<>(); // namespace/name → System.nanoTime()
    private final Map<String, Long> nodeStartNanos = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<String, Long> provisionedAfter = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean stop;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile Throwable failure;

    /**
     * @param budget  how many nodes it may start in all
     * @param backoff its wait before listing again after a failed list or watch, by consecutive failures
     */
    TestProvisioner(ControlPlane cp, Kube admin, int budget, Backoff backoff) {
        this.cp = cp;
        this.admin = admin;
        this.budget = budget;
        this.backoff = backoff;
        this.watches = cp.adminClient(); // its own client: a watch holds a connection open
        this.loop = Thread.ofPlatform().daemon().name("test-provisioner").start(this::run);
    }

    /** The nodes it started. */
    List<HollowNode> nodes() {
        return List.copyOf(started);
    }

    /** When it marked request {@code namespace/name} Provisioned ({@link System#nanoTime()}), or null. */
    Long provisionedAt(String ns, String name) {
        return provisioned.get(ns + "/" + name);
    }

    /** How long after it saw request {@code namespace/name} it said Provisioned (nanoseconds), or null. */
    Long provisionedAfter(String ns, String name) {
        return provisionedAfter.get(ns + "/" + name);
    }

    /** How long it took to start request {@code namespace/name}'s nodes and see them Ready (nanoseconds), or null. */
    Long nodeStartNanos(String ns, String name) {
        return nodeStartNanos.get(ns + "/" + name);
    }

    /** What went wrong in its loop, or null. */
    Throwable failure() {
        return failure;
    }

    private void run() {
        int failures = 0;
        while (!stop) {
            try {
                watch(handleAll());
                failures = 0;
            } catch (RuntimeException | ApiException | java.io.IOException e) {
                if (stop) {
                    return;
                }
                failure = e;
                try {
                    stopped.await(backoff.delayAfter(++failures).toNanos(), TimeUnit.NANOSECONDS); // close() ends the wait
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** Lists the requests, handles those not handled yet, and returns the list's resourceVersion to watch from. */
    @SuppressWarnings("unchecked")
    private String handleAll() throws ApiException {
        Map<String, Object> list = (Map<String, Object>) admin.custom().listClusterCustomObject(GROUP, "v1", PLURAL).execute();
        for (Object o : (List<Object>) list.getOrDefault("items", List.of())) {
            handle((Map<String, Object>) o);
        }
        return (String) ((Map<String, Object>) list.get("metadata")).get("resourceVersion");
    }

    /** Handles each request added from {@code resourceVersion} on, until the watch ends (within 30 s: then it lists again). */
    @SuppressWarnings("unchecked")
    private void watch(String resourceVersion) throws ApiException, java.io.IOException {
        Type type = new TypeToken<Watch.Response<Map<String, Object>>>() {}.getType();
        try (Watch<Map<String, Object>> w = Watch.createWatch(watches, admin.custom().listClusterCustomObject(GROUP, "v1", PLURAL)
                .resourceVersion(resourceVersion).timeoutSeconds(30).watch(true).buildCall(null), type)) {
            current = w;
            for (Watch.Response<Map<String, Object>> e : w) {
                if (stop) {
                    return;
                }
                if ("ADDED".equals(e.type) && e.object != null) {
                    handle(e.object);
                } else if ("ERROR".equals(e.type)) {
                    return; // too old a resourceVersion, say: list again
                }
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void handle(Map<String, Object> pr) throws ApiException {
        Map<String, Object> meta = (Map<String, Object>) pr.get("metadata");
        String ns = (String) meta.get("namespace");
        String name = (String) meta.get("name");
        if (!handled.add(ns + "/" + name)) {
            return;
        }
        Map<String, Object> spec = (Map<String, Object>) pr.get("spec");
        if (!ATOMIC.equals(spec.get("provisioningClassName"))) {
            return;
        }
        int pods = 0;
        Map<String, String> labels = Map.of();
        for (Object s : (List<Object>) spec.get("podSets")) {
            Map<String, Object> set = (Map<String, Object>) s;
            pods += ((Number) set.get("count")).intValue();
            if (labels.isEmpty()) {
                String template = (String) ((Map<String, Object>) set.get("podTemplateRef")).get("name");
                V1PodTemplate t = admin.core().readNamespacedPodTemplate(template, ns).execute();
                Map<String, String> selector = t.getTemplate().getSpec().getNodeSelector();
                labels = selector == null ? Map.of() : selector;
            }
        }
        conditions(ns, name, Map.of("Accepted", new String[]{"Accepted", "ProvisioningRequest is accepted by ClusterAutoscaler"}));
        if (labels.equals(HOLD)) {
            return;
        }
        if (started.size() + pods > budget) {
            conditions(ns, name, Map.of("Accepted", new String[]{"Accepted", "ProvisioningRequest is accepted by ClusterAutoscaler"},
                    "Failed", new String[]{"CapacityIsNotFound", "cannot start " + pods + " nodes: at most " + (budget - started.size()) + " more"}));
            return;
        }
        long asked = System.nanoTime();
        List<HollowNode> mine = new ArrayList<>();
        for (int i = 0; i < pods; i++) {
            HollowNode n = HollowNode.start(cp, "prov-" + started.size(), labels);
            started.add(n);
            mine.add(n);
        }
        // Provisioned once the scale-up has started, as cluster-autoscaler says it: the nodes register after
        conditions(ns, name, Map.of("Accepted", new String[]{"Accepted", "ProvisioningRequest is accepted by ClusterAutoscaler"},
                "Provisioned", new String[]{"CapacityIsProvisioned", "Capacity is found in the cluster"}));
        provisioned.put(ns + "/" + name, System.nanoTime());
        provisionedAfter.put(ns + "/" + name, System.nanoTime() - asked);
        for (HollowNode n : mine) {
            n.awaitReady(admin, Duration.ofSeconds(120));
            admin.untaint(n.name()); // no node lifecycle controller runs here to lift the not-ready taint
        }
        nodeStartNanos.put(ns + "/" + name, System.nanoTime() - asked);
    }

    /** Replaces the request's status conditions with {@code conditions} (type → reason, message), all True. */
    @SuppressWarnings("unchecked")
    private void conditions(String ns, String name, Map<String, String[]> conditions) throws ApiException {
        Map<String, Object> pr = (Map<String, Object>) admin.custom().getNamespacedCustomObject(GROUP, "v1", ns, PLURAL, name).execute();
        List<Map<String, Object>> out = new ArrayList<>();
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        for (Map.Entry<String, String[]> c : new java.util.TreeMap<>(conditions).entrySet()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", c.getKey());
            m.put("status", "True");
            m.put("reason", c.getValue()[0]);
            m.put("message", c.getValue()[1]);
            m.put("lastTransitionTime", now);
            out.add(m);
        }
        pr.put("status", Map.of("conditions", out));
        admin.custom().replaceNamespacedCustomObjectStatus(GROUP, "v1", ns, PLURAL, name, pr).execute();
    }

    @Override
    public void close() {
        stop = true;
        stopped.countDown();
        loop.interrupt();
        Watch<?> w = current;
        if (w != null) {
            try {
                w.close(); // ends the open watch
            } catch (java.io.IOException e) {
                // closing anyway
            }
        }
        started.forEach(HollowNode::close);
    }
}
