package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.controller.writer.StatusPatchException.Kind;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.PodGroupCondition;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusKey;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The adapter over real HTTP against fabric8's mock API server: CRUD mode stores the objects and applies the
 * merge patches (with or without a status subresource per CRD); expectations serve API discovery and
 * injected errors, which CRUD mode cannot.
 */
class KubeStatusPatcherTest {
    private static final String GV = "/apis/scheduling.volcano.sh/v1beta1";
    private static final Instant T = Instant.parse("2025-01-01T00:00:00Z");

    private KubernetesMockServer server;
    private NamespacedKubernetesClient fabric8;
    private KubeStatusPatcher patcher;
    private final List<Sent> sent = new ArrayList<>();

    /** A request as the adapter put it on the wire (recorded client-side: the mock consumes bodies it serves). */
    record Sent(String method, String path, String contentType, String body, String fieldManager) {}

    private ApiClient recordingClient() {
        ApiClient client = new ApiClient();
        client.setBasePath(server.url("/").toString().replaceAll("/$", ""));
        client.setHttpClient(client.getHttpClient().newBuilder().addNetworkInterceptor(chain -> { // what goes on the wire
            okhttp3.Request r = chain.request();
            String body = "";
            if (r.body() != null) {
                okio.Buffer b = new okio.Buffer();
                r.body().writeTo(b);
                body = b.readUtf8();
            }
            synchronized (sent) {
                sent.add(new Sent(r.method(), r.url().encodedPath(), r.header("Content-Type") != null ? r.header("Content-Type")
                        : r.body() != null && r.body().contentType() != null ? r.body().contentType().toString() : null, body,
                        r.url().queryParameter("fieldManager")));
            }
            // the fabric8 mock matches and stores by path and query: it does not know fieldManager
            return chain.proceed(r.newBuilder().url(r.url().newBuilder().removeAllQueryParameters("fieldManager").build()).build());
        }).build());
        return client;
    }

    private static CustomResourceDefinitionContext crd(String plural, String kind, boolean namespaced, boolean statusSubresource) {
        return new CustomResourceDefinitionContext.Builder().withGroup("scheduling.volcano.sh").withVersion("v1beta1")
                .withPlural(plural).withKind(kind).withScope(namespaced ? "Namespaced" : "Cluster")
                .withStatusSubresource(statusSubresource).build();
    }

    private static final CustomResourceDefinitionContext QUEUES = crd("queues", "Queue", false, true);

    private void start(boolean podGroupStatusSubresource, String... discovered) {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses, List.of(QUEUES, podGroups(podGroupStatusSubresource))), false);
        server.init();
        fabric8 = server.createClient();
        StringBuilder resources = new StringBuilder();
        for (String name : discovered) {
            resources.append(resources.isEmpty() ? "" : ",").append("{\"name\":\"").append(name)
                    .append("\",\"singularName\":\"\",\"namespaced\":").append(name.startsWith("podgroups"))
                    .append(",\"kind\":\"X\",\"verbs\":[\"get\"]}");
        }
        server.expect().get().withPath(GV).andReturn(200,
                "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"scheduling.volcano.sh/v1beta1\",\"resources\":["
                        + resources + "]}").always();
        patcher = new KubeStatusPatcher(recordingClient(), System::nanoTime);
    }

    private static CustomResourceDefinitionContext podGroups(boolean statusSubresource) {
        return crd("podgroups", "PodGroup", true, statusSubresource);
    }

    @AfterEach
    void stop() {
        if (fabric8 != null) {
            fabric8.close();
        }
        if (server != null) {
            server.destroy();
        }
    }

    private void create(CustomResourceDefinitionContext ctx, String namespace, String name) {
        GenericKubernetesResource r = new GenericKubernetesResourceBuilder().withApiVersion("scheduling.volcano.sh/v1beta1")
                .withKind(ctx.getKind()).withNewMetadata().withName(name).withNamespace(namespace).endMetadata().build();
        r.setAdditionalProperty("spec", Map.of("minMember", 2));
        if (namespace == null) {
            fabric8.genericKubernetesResources(ctx).resource(r).create();
        } else {
            fabric8.genericKubernetesResources(ctx).inNamespace(namespace).resource(r).create();
        }
    }

    private Object statusOf(CustomResourceDefinitionContext ctx, String namespace, String name) {
        GenericKubernetesResource r = namespace == null ? fabric8.genericKubernetesResources(ctx).withName(name).get()
                : fabric8.genericKubernetesResources(ctx).inNamespace(namespace).withName(name).get();
        return r.getAdditionalProperties().get("status");
    }

    /** The requests the adapter sent since the last call. */
    private List<Sent> adapterRequests() {
        synchronized (sent) {
            List<Sent> out = List.copyOf(sent);
            sent.clear();
            return out;
        }
    }

    private static QueueStatus queueStatus(long cpuMillis, long memory) {
        return new QueueStatus(QueueState.OPEN, 1, 2, 3, 0, 4,
                Resources.builder().set(ResourceNames.CPU, cpuMillis).set(ResourceNames.MEMORY, memory).build());
    }

    private static PodGroupStatus runningStatus() {
        return new PodGroupStatus(PodGroupPhase.RUNNING, List.of(new PodGroupCondition(PodGroupCondition.SCHEDULED,
                PodGroupCondition.TRUE, PodGroupCondition.GANG_BOUND, "at least 2 members bound together", T)), 2, 0, 0);
    }

    @Test
    void queueStatusIsMergePatchedThroughTheStatusSubresource() throws Exception {
        start(false, "queues", "queues/status", "podgroups");
        create(QUEUES, null, "research");
        adapterRequests();

        patcher.patch(StatusKey.queue("research"), queueStatus(4500, 16L << 30), null);

        List<Sent> requests = adapterRequests();
        Sent patch = requests.getLast();
        assertThat(patch.method()).isEqualTo("PATCH");
        assertThat(patch.path()).isEqualTo(GV + "/queues/research/status");
        assertThat(patch.fieldManager()).isEqualTo("muster-controller");
        assertThat(patch.contentType()).startsWith("application/merge-patch+json");
        assertThat(patch.body()).isEqualTo("{\"status\":{\"state\":\"Open\",\"pending\":1,\"inqueue\":2,\"running\":3,"
                + "\"unknown\":0,\"completed\":4,\"allocated\":{\"cpu\":\"4500m\",\"memory\":\"16Gi\"}}}");
        assertThat(patch.body()).doesNotContain("resourceVersion");
        assertThat(StatusJson.parseQueue(statusOf(QUEUES, null, "research"))).isEqualTo(queueStatus(4500, 16L << 30));
    }

    @Test
    void aResourceThatIsNoLongerAllocatedIsDeletedFromTheMap() throws Exception {
        start(false, "queues", "queues/status", "podgroups");
        create(QUEUES, null, "research");
        QueueStatus before = queueStatus(1000, 1L << 30);
        patcher.patch(StatusKey.queue("research"), before, null);
        QueueStatus after = new QueueStatus(QueueState.OPEN, 1, 2, 3, 0, 4, Resources.builder().set(ResourceNames.CPU, 500).build());
        adapterRequests();

        patcher.patch(StatusKey.queue("research"), after, before);

        assertThat(adapterRequests().getFirst().body()).contains("\"allocated\":{\"cpu\":\"500m\",\"memory\":null}");
        assertThat(StatusJson.parseQueue(statusOf(QUEUES, null, "research"))).isEqualTo(after);
    }

    @Test
    void podGroupIsPatchedOnTheObjectWhenDiscoveryListsNoStatusSubresource() throws Exception {
        start(false, "queues", "queues/status", "podgroups");
        CustomResourceDefinitionContext pgs = podGroups(false);
        create(pgs, "team", "job-1");
        adapterRequests();

        patcher.patch(StatusKey.podGroup(new GangKey("team", "job-1")), runningStatus(), null);

        List<Sent> requests = adapterRequests();
        assertThat(requests).extracting(Sent::method, Sent::path)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("GET", GV),
                        org.assertj.core.groups.Tuple.tuple("PATCH", GV + "/namespaces/team/podgroups/job-1"));
        Sent patch = requests.get(1);
        assertThat(patch.contentType()).startsWith("application/merge-patch+json");
        assertThat(patch.body()).isEqualTo("{\"status\":{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Scheduled\","
                + "\"status\":\"True\",\"reason\":\"GangBound\",\"message\":\"at least 2 members bound together\","
                + "\"lastTransitionTime\":\"2025-01-01T00:00:00Z\"}],\"running\":2,\"succeeded\":0,\"failed\":0}}");
        assertThat(StatusJson.parsePodGroup(statusOf(pgs, "team", "job-1"))).isEqualTo(runningStatus());
        assertThat(fabric8.genericKubernetesResources(pgs).inNamespace("team").withName("job-1").get()
                .getAdditionalProperties().get("spec")).as("the rest of the object is untouched").isEqualTo(Map.of("minMember", 2));
    }

    @Test
    void podGroupIsPatchedThroughStatusWhenDiscoveryListsIt() throws Exception {
        start(true, "queues", "queues/status", "podgroups", "podgroups/status");
        CustomResourceDefinitionContext pgs = podGroups(true);
        create(pgs, "team", "job-1");
        adapterRequests();

        patcher.patch(StatusKey.podGroup(new GangKey("team", "job-1")), runningStatus(), null);

        assertThat(adapterRequests().getLast().path()).isEqualTo(GV + "/namespaces/team/podgroups/job-1/status");
        assertThat(StatusJson.parsePodGroup(statusOf(pgs, "team", "job-1"))).isEqualTo(runningStatus());
    }

    @Test
    void discoveryRunsOnceAndAgainAfterANotFound() throws Exception {
        start(false, "queues", "queues/status", "podgroups");
        create(QUEUES, null, "a");
        patcher.patch(StatusKey.queue("a"), queueStatus(1000, 0), null);
        patcher.patch(StatusKey.queue("a"), queueStatus(2000, 0), null);
        assertThatThrownBy(() -> patcher.patch(StatusKey.queue("missing"), queueStatus(1000, 0), null))
                .isInstanceOfSatisfying(StatusPatchException.class, e -> assertThat(e.kind()).isEqualTo(Kind.NOT_FOUND));
        patcher.patch(StatusKey.queue("a"), queueStatus(3000, 0), null);
        assertThat(adapterRequests()).extracting(Sent::method)
                .containsExactly("GET", "PATCH", "PATCH", "PATCH", "GET", "PATCH");
    }

    @Test
    void httpErrorsBecomeKindsTheWriterRetries() {
        start(false, "queues", "queues/status", "podgroups");
        server.expect().patch().withPath(GV + "/queues/busy/status").andReturn(429, "{}").withHeader("Retry-After", "7").once();
        server.expect().patch().withPath(GV + "/queues/broken/status").andReturn(500, "{}").once();
        server.expect().patch().withPath(GV + "/queues/contested/status").andReturn(409, "{}").once();
        server.expect().patch().withPath(GV + "/queues/forbidden/status").andReturn(403, "{}").once();

        assertThatThrownBy(() -> patcher.patch(StatusKey.queue("busy"), queueStatus(1, 0), null))
                .isInstanceOfSatisfying(StatusPatchException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.THROTTLED);
                    assertThat(e.retryAfter()).hasSeconds(7);
                });
        assertThatThrownBy(() -> patcher.patch(StatusKey.queue("broken"), queueStatus(1, 0), null))
                .isInstanceOfSatisfying(StatusPatchException.class, e -> assertThat(e.kind()).isEqualTo(Kind.SERVER_ERROR));
        assertThatThrownBy(() -> patcher.patch(StatusKey.queue("contested"), queueStatus(1, 0), null))
                .isInstanceOfSatisfying(StatusPatchException.class, e -> assertThat(e.kind()).isEqualTo(Kind.CONFLICT));
        assertThatThrownBy(() -> patcher.patch(StatusKey.queue("forbidden"), queueStatus(1, 0), null))
                .isInstanceOfSatisfying(StatusPatchException.class, e -> {
                    assertThat(e.kind()).isEqualTo(Kind.REJECTED);
                    assertThat(e.getMessage()).contains("PATCH " + GV + "/queues/forbidden/status", "403");
                });
    }

    @Test
    void failedDiscoveryFallsBackToVolcanosLayout() throws Exception {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses, List.of(QUEUES, podGroups(false))), false);
        server.init();
        fabric8 = server.createClient();
        server.expect().get().withPath(GV).andReturn(503, "{}").always();
        patcher = new KubeStatusPatcher(recordingClient(), System::nanoTime);
        create(QUEUES, null, "q");
        create(podGroups(false), "team", "pg");
        adapterRequests();

        patcher.patch(StatusKey.queue("q"), queueStatus(1000, 0), null);
        patcher.patch(StatusKey.podGroup(new GangKey("team", "pg")), runningStatus(), null);

        assertThat(adapterRequests()).extracting(Sent::path)
                .containsExactly(GV, GV + "/queues/q/status", GV + "/namespaces/team/podgroups/pg");
        assertThat(StatusJson.parsePodGroup(statusOf(podGroups(false), "team", "pg"))).isEqualTo(runningStatus());
    }
}
