package dev.muster.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.kube.KubeClients;
import dev.muster.controller.sync.ControllerInformers;
import dev.muster.core.time.Backoff;
import dev.muster.controller.writer.KubeStatusPatcher;
import dev.muster.controller.writer.StatusJson;
import dev.muster.controller.writer.WriterCounters;
import dev.muster.core.model.GangKey;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.ManualClock;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.model.GangState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A controller (re)starting against an API server over HTTP (fabric8's mock in CRUD mode, with discovery scripted):
 * the real informers list Queues, PodGroups with the status a previous leader wrote, and member pods; the stream
 * delivers a snapshot; the new leader then patches only the object whose status is wrong, on the right path.
 * (The mock serves watches over WebSocket only, so this covers the first list; changes are covered elsewhere.)
 */
class ControllerOverHttpTest {
    private static final String GV = "scheduling.volcano.sh/v1beta1";
    private static final CustomResourceDefinitionContext QUEUES = new CustomResourceDefinitionContext.Builder()
            .withGroup("scheduling.volcano.sh").withVersion("v1beta1").withPlural("queues").withKind("Queue").withScope("Cluster")
            .withStatusSubresource(true).build();
    private static final CustomResourceDefinitionContext PODGROUPS = new CustomResourceDefinitionContext.Builder()
            .withGroup("scheduling.volcano.sh").withVersion("v1beta1").withPlural("podgroups").withKind("PodGroup").withScope("Namespaced")
            .build();

    private KubernetesMockServer server;
    private NamespacedKubernetesClient fabric8;
    private ControllerInformers informers;
    private Controller controller;
    private final ExecutorService watchExecutor = Executors.newSingleThreadExecutor();
    private final List<String> patches = new ArrayList<>();

    @BeforeEach
    void start() {
        Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), responses,
                new KubernetesMixedDispatcher(responses, List.of(QUEUES, PODGROUPS)), false);
        server.init();
        server.expect().get().withPath("/apis/" + GV).andReturn(200, "{\"kind\":\"APIResourceList\",\"groupVersion\":\"" + GV + "\","
                + "\"resources\":[{\"name\":\"queues\"},{\"name\":\"queues/status\"},{\"name\":\"podgroups\"}]}").always();
        fabric8 = server.createClient();
    }

    @AfterEach
    void stop() {
        if (informers != null) {
            informers.close();
        }
        if (controller != null) {
            controller.close();
        }
        watchExecutor.shutdownNow();
        fabric8.close();
        server.destroy();
    }

    private ApiClient client(boolean recordPatches) {
        KubeClients clients = KubeClients.forUrl(server.url("/").toString().replaceAll("/$", ""));
        ApiClient c = recordPatches ? clients.requests() : clients.watches();
        if (recordPatches) {
            c.setHttpClient(c.getHttpClient().newBuilder().addInterceptor(chain -> {
                if ("PATCH".equals(chain.request().method())) {
                    synchronized (patches) {
                        patches.add(chain.request().url().encodedPath());
                    }
                }
                return chain.proceed(chain.request());
            }).build());
        }
        return c;
    }

    private void create(CustomResourceDefinitionContext ctx, String namespace, String name, Map<String, Object> spec, Map<String, Object> status) {
        GenericKubernetesResource r = new GenericKubernetesResourceBuilder().withApiVersion(GV).withKind(ctx.getKind())
                .withNewMetadata().withName(name).withNamespace(namespace).endMetadata().build();
        r.setAdditionalProperty("spec", spec);
        if (status != null) {
            r.setAdditionalProperty("status", status);
        }
        var op = namespace == null ? fabric8.genericKubernetesResources(ctx) : fabric8.genericKubernetesResources(ctx).inNamespace(namespace);
        GenericKubernetesResource created = op.resource(r).create();
        if (status != null && ctx.isStatusSubresource()) { // the API drops status on create; a previous leader wrote it through /status
            created.setAdditionalProperty("status", status);
            op.resource(created).updateStatus();
        }
    }

    private void memberPod(String name, String gang) {
        fabric8.pods().inNamespace("team").resource(new PodBuilder()
                .withNewMetadata().withName(name).withNamespace("team").withUid("uid-" + name)
                .addToAnnotations("scheduling.k8s.io/group-name", gang).endMetadata()
                .withNewSpec().withNodeName("node-1").addNewContainer().withName("main").withImage("x").endContainer().endSpec()
                .withNewStatus().withPhase("Running").endStatus().build()).create();
    }

    private static Map<String, Object> runningStatus() {
        return Map.of("phase", "Running", "running", 2, "succeeded", 0, "failed", 0, "conditions", List.of(Map.of(
                "type", "Scheduled", "status", "True", "reason", "GangBound", "message", "at least 2 members bound together",
                "lastTransitionTime", "2024-12-31T10:00:00Z")));
    }

    @Test
    void aNewLeaderPatchesOnlyWhatTheApiShowsWrong() {
        create(QUEUES, null, "research", Map.of("weight", 1), Map.of("state", "Open", "pending", 0, "inqueue", 0, "running", 2,
                "unknown", 0, "completed", 0, "allocated", Map.of("cpu", "4")));
        create(PODGROUPS, "team", "right", Map.of("minMember", 2, "queue", "research"), runningStatus());
        create(PODGROUPS, "team", "stale", Map.of("minMember", 2, "queue", "research"), Map.of("phase", "Pending"));
        for (String g : List.of("right", "stale")) {
            memberPod(g + "-0", g);
            memberPod(g + "-1", g);
        }
        WriterCounters counters = new WriterCounters();
        controller = new Controller(new Controller.Settings(100, 100, Controller.Settings.WRITE_BACKOFF), new KubeStatusPatcher(client(true), System::nanoTime),
                ManualClock.at("2025-01-01T00:00:00Z"), System::nanoTime, watchExecutor, counters);
        controller.setLeading(true);
        informers = new ControllerInformers(client(false), controller.cluster(), Duration.ZERO);
        informers.start();
        await().atMost(Duration.ofSeconds(30)).until(informers::isSynced);
        assertThat(controller.notReadyReason()).isEqualTo("waiting for the allocation stream");

        controller.allocations().onSnapshot(new AllocationSnapshot(42,
                Map.of("research", Resources.builder().set(ResourceNames.CPU, 4000).build()),
                Map.of(new GangKey("team", "right"), new AllocationSnapshot.GangStatus("research", GangState.BOUND, dev.muster.core.model.Refusal.NONE),
                        new GangKey("team", "stale"), new AllocationSnapshot.GangStatus("research", GangState.BOUND, dev.muster.core.model.Refusal.NONE))));
        controller.flush();

        assertThat(patches).containsExactly("/apis/" + GV + "/namespaces/team/podgroups/stale");
        assertThat(counters.snapshot().skipped()).isEqualTo(2);
        var stale = StatusJson.parsePodGroup(fabric8.genericKubernetesResources(PODGROUPS).inNamespace("team").withName("stale").get()
                .getAdditionalProperties().get("status"));
        assertThat(stale.phase()).isEqualTo(PodGroupPhase.RUNNING);
        assertThat(stale.running()).isEqualTo(2);
    }
}
