package dev.muster.e2e;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.AdmissionregistrationV1Api;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.AdmissionregistrationV1WebhookClientConfig;
import io.kubernetes.client.openapi.models.V1Binding;
import io.kubernetes.client.openapi.models.V1LabelSelector;
import io.kubernetes.client.openapi.models.V1ObjectReference;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1RuleWithOperations;
import io.kubernetes.client.openapi.models.V1ValidatingWebhook;
import io.kubernetes.client.openapi.models.V1ValidatingWebhookConfiguration;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A validating admission webhook on {@code pods/binding} in one namespace that <em>delays</em> the Bindings of chosen
 * pods until {@link #release()}: the one way to make a real API server answer one gang member's Binding before the
 * others' (Kubernetes has no multi-pod binding, and which answer comes first is otherwise up to the machine). It
 * allows every Binding — it only decides when — and holds none longer than {@link #MAX_HOLD}, well inside the API
 * server's webhook timeout, so a test that forgets to release cannot wedge the cluster.
 */
public final class BindingGate implements AutoCloseable {
    /** Longest a Binding is held (the API server gives a webhook at most 30 s). */
    public static final Duration MAX_HOLD = Duration.ofSeconds(20);
    private static final String PROBE = "binding-gate-probe";

    private final AdmissionregistrationV1Api api;
    private final String name;
    private final Set<String> holdPods;
    private final Set<String> waiting = ConcurrentHashMap.newKeySet();
    private final Set<String> seen = ConcurrentHashMap.newKeySet();
    private final CoreV1Api core;
    private final String ns;
    private final CountDownLatch released = new CountDownLatch(1);
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final HttpsServer server;

    /**
     * Serves the webhook on a loopback port (certificate made in {@code dir}) and registers it for Bindings created in
     * namespace {@code ns}; the Bindings of {@code holdPods} (pod names) wait until {@link #release()}.
     */
    public BindingGate(ApiClient admin, Path dir, String ns, Set<String> holdPods) throws IOException, GeneralSecurityException,
            InterruptedException {
        this.api = new AdmissionregistrationV1Api(admin);
        this.core = new CoreV1Api(admin);
        this.ns = ns;
        this.name = "muster-e2e-binding-gate-" + ns;
        this.holdPods = Set.copyOf(holdPods);
        Files.createDirectories(dir);
        Pki.ServingCert cert = Pki.servingCert(dir);
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.setHttpsConfigurator(new HttpsConfigurator(cert.serverContext()));
        server.createContext("/validate", this::review);
        server.setExecutor(executor);
        server.start();
        V1ValidatingWebhookConfiguration config = new V1ValidatingWebhookConfiguration()
                .metadata(new V1ObjectMeta().name(name))
                .webhooks(List.of(new V1ValidatingWebhook()
                        .name("binding-gate.e2e.muster.dev")
                        .clientConfig(new AdmissionregistrationV1WebhookClientConfig()
                                .url("https://127.0.0.1:" + server.getAddress().getPort() + "/validate")
                                .caBundle(Files.readAllBytes(cert.certFile())))
                        .rules(List.of(new V1RuleWithOperations().operations(List.of("CREATE")).apiGroups(List.of(""))
                                .apiVersions(List.of("v1")).resources(List.of("pods/binding"))))
                        .namespaceSelector(new V1LabelSelector().matchLabels(Map.of("kubernetes.io/metadata.name", ns)))
                        .sideEffects("None")
                        .admissionReviewVersions(List.of("v1"))
                        .failurePolicy("Fail")
                        .timeoutSeconds(30)));
        Kube.call("create webhook " + name, () -> api.createValidatingWebhookConfiguration(config).execute());
    }

    /**
     * Waits until the API server calls the webhook (it picks up a new configuration within a second or so): asks for a
     * dry-run Binding of a pod that does not exist until the gate has seen one.
     */
    public void awaitActive(Duration atMost) throws InterruptedException {
        long until = System.nanoTime() + atMost.toNanos();
        while (!seen.contains(PROBE)) {
            if (System.nanoTime() - until > 0) {
                throw new IllegalStateException("the API server did not call webhook " + name + " within " + atMost);
            }
            V1Binding probe = new V1Binding().metadata(new V1ObjectMeta().name(PROBE).namespace(ns))
                    .target(new V1ObjectReference().kind("Node").name("no-such-node"));
            try {
                core.createNamespacedPodBinding(PROBE, ns, probe).dryRun("All").execute();
            } catch (ApiException expected) {
                // the pod does not exist: the webhook was asked (or not yet) before that was found out
            }
            Thread.sleep(100);
        }
    }

    /** Pods whose Binding is being held right now. */
    public Set<String> waiting() {
        return Set.copyOf(waiting);
    }

    /** Lets every held Binding (and every later one) through. */
    public void release() {
        released.countDown();
    }

    @Override
    public void close() {
        release();
        try {
            Kube.call("delete webhook " + name, () -> api.deleteValidatingWebhookConfiguration(name).execute());
        } finally {
            server.stop(0);
            executor.shutdownNow();
        }
    }

    private void review(HttpExchange ex) throws IOException {
        try (ex) {
            JsonObject request = JsonParser.parseString(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8))
                    .getAsJsonObject().getAsJsonObject("request");
            String pod = request.get("name").getAsString();
            seen.add(pod);
            if (holdPods.contains(pod)) {
                waiting.add(pod);
                try {
                    released.await(MAX_HOLD.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    waiting.remove(pod);
                }
            }
            byte[] answer = ("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"response\":{\"uid\":\""
                    + request.get("uid").getAsString() + "\",\"allowed\":true}}").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, answer.length);
            try (OutputStream out = ex.getResponseBody()) {
                out.write(answer);
            }
        }
    }
}
