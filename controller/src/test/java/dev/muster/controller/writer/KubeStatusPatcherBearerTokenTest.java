package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.StatusKey;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.Config;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Status patches authenticated with a bearer token — how every in-cluster ServiceAccount authenticates. The
 * fabric8 mock has no authentication, so this runs the real patcher against a loopback HTTP server that records
 * what arrives: client-java puts the Authorization header into the call's header map, which once made every
 * hand-built call fail with UnsupportedOperationException before anything was sent.
 */
class KubeStatusPatcherBearerTokenTest {
    private static final String DISCOVERY = "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\",\"groupVersion\":\"scheduling.volcano.sh/v1beta1\","
            + "\"resources\":[{\"name\":\"podgroups\",\"singularName\":\"podgroup\",\"namespaced\":true,\"kind\":\"PodGroup\",\"verbs\":[\"patch\"]},"
            + "{\"name\":\"queues\",\"singularName\":\"queue\",\"namespaced\":false,\"kind\":\"Queue\",\"verbs\":[\"patch\"]},"
            + "{\"name\":\"queues/status\",\"singularName\":\"\",\"namespaced\":false,\"kind\":\"Queue\",\"verbs\":[\"patch\"]}]}";

    record Received(String method, String pathAndQuery, String authorization, String contentType, String body) {}

    private HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", ex -> {
            String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            remember(ex.getRequestMethod(), ex.getRequestURI().toString(), ex.getRequestHeaders().getFirst("Authorization"),
                    ex.getRequestHeaders().getFirst("Content-Type"), body);
            byte[] answer = (ex.getRequestMethod().equals("GET") ? DISCOVERY : "{}").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().add("Content-Type", "application/json");
            ex.sendResponseHeaders(200, answer.length);
            ex.getResponseBody().write(answer);
            ex.close();
        });
        server.start();
    }

    private void remember(String method, String uri, String auth, String contentType, String body) {
        received.add(new Received(method, uri, auth, contentType, body));
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private KubeStatusPatcher patcher() {
        ApiClient client = Config.fromToken("http://127.0.0.1:" + server.getAddress().getPort(), "s3cr3t-token", false);
        return new KubeStatusPatcher(client, System::nanoTime);
    }

    @Test
    void queueAndPodGroupStatusAreWrittenWithTheBearerTokenAsMergePatches() throws Exception {
        KubeStatusPatcher patcher = patcher();
        QueueStatus queue = new QueueStatus(QueueState.OPEN, 0, 0, 1, 0, 0, Resources.builder().set(ResourceNames.CPU, 2000).build());
        patcher.patch(new StatusKey.Queue("default"), queue, null);
        PodGroupStatus pg = new PodGroupStatus(PodGroupPhase.PENDING, List.of(), 0, 0, 0);
        patcher.patch(new StatusKey.PodGroup(new GangKey("ml", "train")), pg, null);

        assertThat(received).allSatisfy(r -> assertThat(r.authorization()).isEqualTo("Bearer s3cr3t-token"));
        assertThat(received).extracting(Received::method).containsExactly("GET", "PATCH", "PATCH");
        assertThat(received.get(0).pathAndQuery()).isEqualTo("/apis/scheduling.volcano.sh/v1beta1");
        Received q = received.get(1);
        assertThat(q.pathAndQuery()).isEqualTo("/apis/scheduling.volcano.sh/v1beta1/queues/default/status?fieldManager=muster-controller");
        assertThat(q.contentType()).startsWith("application/merge-patch+json");
        assertThat(q.body()).startsWith("{\"status\":{").contains("\"allocated\":{\"cpu\":\"2\"}");
        Received p = received.get(2);
        assertThat(p.pathAndQuery()).isEqualTo("/apis/scheduling.volcano.sh/v1beta1/namespaces/ml/podgroups/train?fieldManager=muster-controller");
        assertThat(p.contentType()).startsWith("application/merge-patch+json");
        assertThat(p.body()).startsWith("{\"status\":{").contains("\"phase\":\"Pending\"");
    }
}
