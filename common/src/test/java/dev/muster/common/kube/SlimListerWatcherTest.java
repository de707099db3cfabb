package dev.muster.common.kube;

import static dev.muster.common.kube.SlimProtoTest.fixture;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SlimListerWatcher} over HTTP against a small server that answers with the real captures: what it asks for, and
 * that the answer's Content-Type picks the decoder.
 */
class SlimListerWatcherTest {
    /** What the fake API server answers next, and what it was asked. Guarded by {@code this}. */
    private record Answer(int code, String contentType, byte[] body) {}

    private final List<String> requests = new ArrayList<>();
    private final List<String> accepts = new ArrayList<>();
    private Answer answer;
    private HttpServer server;
    private ApiClient client;

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            Answer a;
            synchronized (this) {
                requests.add(exchange.getRequestURI().toString());
                accepts.add(exchange.getRequestHeaders().getFirst("Accept"));
                a = answer;
            }
            exchange.getResponseHeaders().set("Content-Type", a.contentType());
            exchange.sendResponseHeaders(a.code(), a.body().length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(a.body());
            }
        });
        server.start();
        client = new ClientBuilder().setBasePath("http://127.0.0.1:" + server.getAddress().getPort()).build();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private synchronized void answer(int code, String contentType, byte[] body) {
        answer = new Answer(code, contentType, body);
    }

    private static CallGeneratorParams params(String resourceVersion, Integer timeoutSeconds) {
        return new CallGeneratorParams(true, resourceVersion, timeoutSeconds);
    }

    private static List<Watch.Response<V1Pod>> drain(Watchable<V1Pod> watch) throws IOException {
        List<Watch.Response<V1Pod>> out = new ArrayList<>();
        try (watch) {
            watch.forEach(out::add);
        }
        return out;
    }

    @Test
    void aListAsksForProtobufFirstAndReadsTheProtobufAnswer() throws ApiException {
        answer(200, "application/vnd.kubernetes.protobuf", fixture("list-pods.pb"));

        V1PodList list = SlimListerWatcher.pods(client).list(params("0", null));

        assertThat(list.getItems()).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrder("plain", "w0", "w1");
        synchronized (this) {
            assertThat(requests).containsExactly("/api/v1/pods?resourceVersion=0");
            assertThat(accepts).containsExactly("application/vnd.kubernetes.protobuf, application/json");
        }
    }

    @Test
    void aServerAnsweringJsonIsReadAsJsonToTheSameObjects() throws ApiException {
        answer(200, "application/vnd.kubernetes.protobuf", fixture("list-pods.pb"));
        V1PodList fromProto = SlimListerWatcher.pods(client).list(params("0", null));
        answer(200, "application/json", fixture("list-pods.json"));
        V1PodList fromJson = SlimListerWatcher.pods(client).list(params("0", null));

        assertThat(fromJson).isEqualTo(fromProto);
    }

    @Test
    void aWatchAsksForTheProtobufStreamWithTheReflectorsParametersAndReadsEveryEvent() throws Exception {
        answer(200, "application/vnd.kubernetes.protobuf;stream=watch", fixture("watch-pods.pb"));

        List<Watch.Response<V1Pod>> events = drain(SlimListerWatcher.pods(client).watch(params("213", 300)));

        assertThat(events).extracting(e -> e.type).startsWith("ADDED", "ADDED", "MODIFIED").contains("DELETED", "BOOKMARK");
        assertThat(events.getFirst().object.getMetadata().getName()).isEqualTo("w0");
        synchronized (this) {
            assertThat(requests).singleElement().satisfies(uri -> assertThat(uri).startsWith("/api/v1/pods?")
                    .contains("watch=true", "allowWatchBookmarks=true", "resourceVersion=213", "timeoutSeconds=300"));
            assertThat(accepts).containsExactly("application/vnd.kubernetes.protobuf;stream=watch, application/json");
        }
    }

    @Test
    void aWatchErrorReachesTheInformerAsAStatusInEitherEncoding() throws Exception {
        answer(200, "application/vnd.kubernetes.protobuf;stream=watch", fixture("watch-pods-error.pb"));
        Watch.Response<V1Pod> fromProto = drain(SlimListerWatcher.pods(client).watch(params("2", 5))).getFirst();
        answer(200, "application/json", fixture("watch-pods-error.json"));
        Watch.Response<V1Pod> fromJson = drain(SlimListerWatcher.pods(client).watch(params("2", 5))).getFirst();

        assertThat(fromProto.type).isEqualTo("ERROR");
        assertThat(fromProto.object).isNull();
        assertThat(fromProto.status.getCode()).isEqualTo(410);
        assertThat(fromProto.status).isEqualTo(fromJson.status);
    }

    @Test
    void aTruncatedWatchFailsTheWatchNamingWhatIsMissing() {
        byte[] stream = fixture("watch-pods.pb");
        answer(200, "application/vnd.kubernetes.protobuf;stream=watch", Arrays.copyOf(stream, stream.length - 3));

        assertThatThrownBy(() -> drain(SlimListerWatcher.pods(client).watch(params("213", 300)))).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("watch pods").hasMessageContaining("watch frame");
    }

    @Test
    void anHttpErrorIsAnApiExceptionNamingResourceVerbAndCode() {
        answer(403, "application/json", "{\"kind\":\"Status\",\"code\":403}".getBytes());

        assertThatThrownBy(() -> SlimListerWatcher.pods(client).list(params(null, null))).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.getMessage()).contains("list pods: HTTP 403");
            assertThat(e.getCode()).isEqualTo(403);
        });
        assertThatThrownBy(() -> SlimListerWatcher.nodes(client).watch(params(null, null))).isInstanceOfSatisfying(ApiException.class,
                e -> assertThat(e.getMessage()).contains("watch nodes: HTTP 403"));
    }

    @Test
    void aMalformedListIsAnApiExceptionNamingTheProblem() {
        byte[] list = fixture("list-pods.pb").clone();
        list[1] = 'X';
        answer(200, "application/vnd.kubernetes.protobuf", list);

        assertThatThrownBy(() -> SlimListerWatcher.pods(client).list(params(null, null))).isInstanceOf(ApiException.class)
                .hasMessageContaining("list pods").hasMessageContaining("k8s\\0 prefix");
    }

    @Test
    void nodesAreListedFromProtobufToo() throws ApiException {
        answer(200, "application/vnd.kubernetes.protobuf", fixture("list-nodes.pb"));

        V1NodeList nodes = SlimListerWatcher.nodes(client).list(params(null, null));

        assertThat(nodes.getItems()).extracting(V1Node::getMetadata).extracting(m -> m.getName()).containsExactlyInAnyOrder("n1", "n2");
        synchronized (this) {
            assertThat(requests).containsExactly("/api/v1/nodes");
        }
    }
}
