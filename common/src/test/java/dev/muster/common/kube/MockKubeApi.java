package dev.muster.common.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fabric8 mock API server over real HTTP, for client-java adapter tests. {@link #crud()} stores objects (including
 * the Volcano CRDs) and enforces resourceVersions; {@link #expectations()} answers scripted responses
 * ({@code server().expect()...}). Close it in {@code @AfterEach}.
 */
public final class MockKubeApi implements AutoCloseable {
    public static final CustomResourceDefinitionContext PODGROUPS = new CustomResourceDefinitionContext.Builder()
            .withGroup(VolcanoCrds.GROUP).withVersion(VolcanoCrds.VERSION).withPlural(VolcanoCrds.PODGROUPS)
            .withKind(VolcanoCrds.PODGROUP_KIND).withScope("Namespaced").build();
    public static final CustomResourceDefinitionContext QUEUES = new CustomResourceDefinitionContext.Builder()
            .withGroup(VolcanoCrds.GROUP).withVersion(VolcanoCrds.VERSION).withPlural(VolcanoCrds.QUEUES)
            .withKind(VolcanoCrds.QUEUE_KIND).withScope("Cluster").withStatusSubresource(true).build();

    private final KubernetesMockServer server;
    private KubernetesClient fabric8;

    private MockKubeApi(KubernetesMockServer server) {
        this.server = server;
        server.init();
    }

    /** How long an idle plain-HTTP watch stays open before it answers with a bookmark. */
    public static final Duration IDLE_WATCH = Duration.ofMillis(200);

    /**
     * CRUD mode: a small in-memory API server. It serves watches over WebSocket (fabric8's clients); client-java's
     * plain-HTTP watches get what an idle API server sends, a BOOKMARK after {@link #IDLE_WATCH} (so the informers
     * see the first list and then nothing, instead of a 400 every time they watch).
     */
    public static MockKubeApi crud() {
        return new MockKubeApi(new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(List.of(PODGROUPS, QUEUES)) {
                    @Override
                    public MockResponse dispatch(RecordedRequest request) {
                        String path = request.getPath();
                        if (request.method() == HttpMethod.GET && path.contains("watch=true") && request.getHeader("Upgrade") == null) {
                            Matcher rv = Pattern.compile("[?&]resourceVersion=([^&]*)").matcher(path);
                            return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json")
                                    .setBody(bookmark(rv.find() ? rv.group(1) : "0") + "\n").setBodyDelay(IDLE_WATCH);
                        }
                        return super.dispatch(request);
                    }
                }, false));
    }

    /** A watch event saying "nothing happened up to {@code resourceVersion}". */
    public static String bookmark(String resourceVersion) {
        return "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"" + resourceVersion + "\"}}}";
    }

    /** Every request answered by {@code dispatcher} (e.g. a list, then a watch's events one request at a time). */
    public static MockKubeApi dispatching(io.fabric8.mockwebserver.http.Dispatcher dispatcher) {
        return new MockKubeApi(new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false));
    }

    /** Expectations mode: only scripted responses. */
    public static MockKubeApi expectations() {
        return new MockKubeApi(new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), false));
    }

    public KubernetesMockServer server() {
        return server;
    }

    /** The base URL, e.g. {@code http://localhost:40123}. */
    public String url() {
        String u = server.url("/");
        return u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
    }

    /** Every request received since the last call (expectations mode: what the code under test sent), oldest first. */
    public java.util.List<RecordedRequest> takeRequests() throws InterruptedException {
        java.util.List<RecordedRequest> all = new java.util.ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(1, java.util.concurrent.TimeUnit.MILLISECONDS)) != null) {
            all.add(r);
        }
        return all;
    }

    /** Muster's client-java clients pointed at this server. */
    public KubeClients clients() {
        return KubeClients.forUrl(url());
    }

    /** A fabric8 client, to create fixtures the way a user would. */
    public synchronized KubernetesClient fabric8() {
        if (fabric8 == null) {
            fabric8 = server.createClient();
        }
        return fabric8;
    }

    @Override
    public synchronized void close() {
        if (fabric8 != null) {
            fabric8.close();
        }
        server.destroy();
    }
}
