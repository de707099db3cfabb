package dev.muster.server.http;

import static dev.muster.core.testing.Fixtures.node;
import static dev.muster.core.testing.Fixtures.podGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.server.leader.Leadership;
import dev.muster.testsupport.extender.ExtenderClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad input gets a clear 4xx (or a readable failed-node reason where kube-scheduler expects 200), never a 5xx, never a ledger change. */
class ExtenderBadInputTest {
    private static ExtenderHarness h;
    private static final String POD = new String(ExtenderHarness.fixture("nodecache-true/filter-request.json"), StandardCharsets.UTF_8);

    @BeforeAll
    static void setUp() throws Exception {
        h = new ExtenderHarness(dev.muster.core.scheduler.SchedulerConfig.DEFAULT.withSchedulerName("gang-scheduler-nc"), null, Leadership.ALWAYS, 64 * 1024); // the profile that recorded the fixture
        h.nodes(node("node-1", "8", "32Gi"), node("node-2", "8", "32Gi"), node("node-3", "8", "32Gi"));
        h.scheduler.upsertPodGroup(podGroup("default", "exists", 2, "default"));
        h.scheduler.markSynced();
    }

    @AfterAll
    static void tearDown() {
        h.close();
    }

    static Stream<Arguments> rejected() {
        return Stream.of(
                Arguments.of("malformed JSON", "/filter", "{\"Pod\":", 400, "bad filter request"),
                Arguments.of("not JSON at all", "/prioritize", "hello", 400, "bad prioritize request"),
                Arguments.of("missing Pod", "/filter", "{\"NodeNames\":[\"node-1\"]}", 400, "Pod"),
                Arguments.of("wrong type for NodeNames", "/filter", POD.replace("\"NodeNames\":[\"node-1\",\"node-2\",\"node-3\"]", "\"NodeNames\":7"), 400, "NodeNames"),
                // a pod's own request Muster cannot read: the filter's Error field, which kube-scheduler puts on the pod's event
                Arguments.of("nonsense quantity", "/filter", POD.replace("\"cpu\":\"100m\"", "\"cpu\":\"lots\""), 200,
                        "\"Error\":\"muster cannot schedule this pod: Pod.spec.containers[0].resources.requests.cpu: quantity \\\"lots\\\""),
                Arguments.of("negative quantity", "/filter", POD.replace("\"cpu\":\"100m\"", "\"cpu\":\"-1\""), 200, "negative"),
                Arguments.of("quantity out of range", "/filter", POD.replace("\"cpu\":\"100m\"", "\"cpu\":\"1e100\""), 200,
                        "muster cannot schedule this pod: Pod.spec.containers[0].resources.requests.cpu: quantity \\\"1e100\\\" has an exponent out of range"),
                Arguments.of("bind without PodUID", "/bind", "{\"PodName\":\"p\",\"PodNamespace\":\"d\",\"Node\":\"node-1\"}", 400, "PodUID"),
                Arguments.of("bind with wrong type", "/bind", "{\"PodName\":1,\"PodNamespace\":\"d\",\"PodUID\":\"u\",\"Node\":\"node-1\"}", 400, "PodName"),
                Arguments.of("preempt with broken victims", "/preempt", "{\"Pod\":" + POD.substring(7, POD.indexOf(",\"Nodes\"")) + ",\"NodeNameToMetaVictims\":{\"node-1\":{\"Pods\":7}}}", 400, "Pods"),
                Arguments.of("unknown verb", "/schedule", "{}", 404, "unknown verb"),
                Arguments.of("body over the limit", "/filter", "{\"Pod\":\"" + "x".repeat(70 * 1024) + "\"}", 413, "exceeds the limit"));
    }

    @ParameterizedTest(name = "{0} → {3}")
    @MethodSource("rejected")
    void rejectsWithAReasonAndChangesNothing(String name, String path, String body, int status, String mentions) {
        String before = h.fingerprint();
        ExtenderClient.Raw r = h.client.post(path, body.getBytes(StandardCharsets.UTF_8));
        assertThat(r.status()).isEqualTo(status);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains(mentions);
        assertThat(h.fingerprint()).isEqualTo(before);
    }

    @Test
    void wrongMethodIs405WithAllow() throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(h.url() + "/filter")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(r.headers().firstValue("Allow")).hasValue("POST");
        assertThat(r.body()).contains("use POST");
    }

    @Test
    void unknownPodInBindIsAReadableBindError() {
        String bind = h.client.bind("ghost", "default", "no-such-uid", "node-1");
        assertThat(bind).contains("has not been seen in the cluster by muster");
    }

    @Test
    void podWithNoRequestsFits() {
        String noRequests = POD.replace("\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}},", "")
                .replace("4952cf49-ad11-4237-a126-55e5368c0122", "no-requests-uid");
        h.seen(noRequests.getBytes(StandardCharsets.UTF_8));
        ExtenderClient.FilterAnswer f = ExtenderClient.parseFilterForTest(h.client.post("/filter", noRequests.getBytes(StandardCharsets.UTF_8)));
        assertThat(f.nodeNames()).containsExactly("node-1"); // picked: equal empty nodes, the first
    }

    @Test
    void memberOfAPodGroupNotSeenYetPassesFilterAndItsBindSaysWhy() {
        // refusing it could park it in kube-scheduler; its bind is held, then fails with the reason
        String orphan = POD.replace("\"annotations\":{\"example.com/gang-size\":\"1\"}", "\"annotations\":{\"scheduling.k8s.io/group-name\":\"nope\"}")
                .replace("4952cf49-ad11-4237-a126-55e5368c0122", "orphan-uid");
        h.seen(orphan.getBytes(StandardCharsets.UTF_8));
        ExtenderClient.FilterAnswer f = ExtenderClient.parseFilterForTest(h.client.post("/filter", orphan.getBytes(StandardCharsets.UTF_8)));
        assertThat(f.nodeNames()).containsExactly("node-1", "node-2", "node-3");
        assertThat(h.scheduler.gang(new dev.muster.core.model.GangKey("default", "nope")).reason()).isEmpty();
    }

    @Test
    void aFilterForAPodTheClusterNeverShowedIsAnErrorThatChangesNothing() {
        String ghost = POD.replace("4952cf49-ad11-4237-a126-55e5368c0122", "ghost-uid");
        ExtenderClient.Raw r = h.client.post("/filter", ghost.getBytes(StandardCharsets.UTF_8));
        assertThat(r.status()).isEqualTo(200);
        assertThat(new String(r.body(), StandardCharsets.UTF_8)).contains("\"Error\"", "has not been seen in the cluster by muster");
        assertThat(h.scheduler.ledger().pods()).isEmpty();
    }

    @Test
    void serverStaysUpAfterAllOfIt() {
        assertThat(h.client.get("/healthz").status()).isEqualTo(200);
    }
}
