package dev.muster.server.bind;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.MockKubeApi;
import dev.muster.core.model.PodId;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** KubeBinder over real HTTP against the fabric8 mock in expectations mode (the CRUD mode does not implement bindings). */
class KubeBinderTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final BindOptions FAST = new BindOptions(Duration.ofSeconds(20), Duration.ofMillis(5), Duration.ofMillis(50), 4);
    private static final PodId POD = new PodId("uid-1", "team-a", "worker-0");
    private static final String BINDING = "/api/v1/namespaces/team-a/pods/worker-0/binding";
    private static final String POD_PATH = "/api/v1/namespaces/team-a/pods/worker-0";
    private static final String SUCCESS = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}";

    private MockKubeApi api;
    private KubeBinder binder;

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
        binder = new KubeBinder(api.clients().requests(), FAST);
    }

    @AfterEach
    void stop() {
        binder.close();
        api.close();
    }

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"" + message
                + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
    }

    private static String pod(String uid, String nodeName) {
        return "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"worker-0\",\"namespace\":\"team-a\",\"uid\":\"" + uid
                + "\"},\"spec\":{" + (nodeName == null ? "" : "\"nodeName\":\"" + nodeName + "\",")
                + "\"containers\":[{\"name\":\"main\",\"image\":\"x\"}]}}";
    }

    private void expectPost(int code, String body) {
        api.server().expect().post().withPath(BINDING).andReturn(code, body).once();
    }

    private static void assertBound(CompletionStage<Void> bind) {
        assertThat(bind.toCompletableFuture()).succeedsWithin(WAIT);
    }

    private static void assertFails(CompletionStage<Void> bind, String message) {
        assertThat(bind.toCompletableFuture()).failsWithin(WAIT).withThrowableOfType(ExecutionException.class)
                .havingCause().isInstanceOf(BindException.class).withMessageContaining(message);
    }

    private List<RecordedRequest> requests() throws InterruptedException {
        return api.takeRequests();
    }

    @Test
    void theBindingJsonIsWhatClientJavaWouldSendAndEscapesWhatJsonMust() {
        com.google.gson.JsonObject b = com.google.gson.JsonParser.parseString(new String(
                KubeBinder.bindingJson(new dev.muster.core.model.PodId("u\"1", "ns", "we\\ird"), "node-7"),
                java.nio.charset.StandardCharsets.UTF_8)).getAsJsonObject();
        assertThat(b.get("apiVersion").getAsString()).isEqualTo("v1");
        assertThat(b.get("kind").getAsString()).isEqualTo("Binding");
        assertThat(b.getAsJsonObject("metadata").get("uid").getAsString()).isEqualTo("u\"1");
        assertThat(b.getAsJsonObject("metadata").get("name").getAsString()).isEqualTo("we\\ird");
        assertThat(b.getAsJsonObject("metadata").get("namespace").getAsString()).isEqualTo("ns");
        assertThat(b.getAsJsonObject("target").get("kind").getAsString()).isEqualTo("Node");
        assertThat(b.getAsJsonObject("target").get("name").getAsString()).isEqualTo("node-7");
    }

    @Test
    void postsABindingWithTheUidPreconditionAndAcceptsTheStatusReply() throws Exception {
        expectPost(201, SUCCESS);

        assertBound(binder.bind(POD, "node-7"));

        List<RecordedRequest> sent = requests();
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).getMethod()).isEqualTo("POST");
        assertThat(sent.get(0).getPath()).isEqualTo(BINDING);
        assertThat(sent.get(0).getHeader("Content-Type")).startsWith("application/vnd.kubernetes.protobuf");
        assertThat(sent.get(0).getBody().readByteArray()).isEqualTo(KubeBinder.bindingProto(POD, "node-7"));
    }

    @Test
    void theJsonEncodingIsStillThereForServersThatWantIt() throws Exception {
        expectPost(201, SUCCESS);
        try (KubeBinder json = new KubeBinder(api.clients().requests(), FAST, KubeBinder.Encoding.JSON)) {
            assertBound(json.bind(POD, "node-7"));
        }
        RecordedRequest sent = requests().get(0);
        assertThat(sent.getHeader("Content-Type")).startsWith("application/json");
        assertThat(sent.getUtf8Body())
                .contains("\"kind\":\"Binding\"", "\"uid\":\"uid-1\"", "\"name\":\"worker-0\"", "\"kind\":\"Node\"", "\"name\":\"node-7\"");
    }

    /** Length-delimited fields of one protobuf message, by field number (what a Binding is made of). */
    private static java.util.Map<Integer, byte[]> fields(byte[] message) throws java.io.IOException {
        java.util.Map<Integer, byte[]> out = new java.util.HashMap<>();
        com.google.protobuf.CodedInputStream in = com.google.protobuf.CodedInputStream.newInstance(message);
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            assertThat(tag & 7).as("wire type of field " + (tag >>> 3)).isEqualTo(2);
            out.put(tag >>> 3, in.readByteArray());
        }
        return out;
    }

    private static String text(java.util.Map<Integer, byte[]> fields, int number) {
        return new String(fields.get(number), java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void theProtobufBindingIsTheKubernetesEnvelopeAroundABindingOfThePodsUidToTheNode() throws Exception {
        byte[] body = KubeBinder.bindingProto(new PodId("u-1", "ns", "we\"ird"), "node-7");
        assertThat(java.util.Arrays.copyOf(body, 4)).isEqualTo(new byte[] {'k', '8', 's', 0});
        var unknown = fields(java.util.Arrays.copyOfRange(body, 4, body.length));
        var typeMeta = fields(unknown.get(1));
        assertThat(text(typeMeta, 1)).isEqualTo("v1");
        assertThat(text(typeMeta, 2)).isEqualTo("Binding");
        var binding = fields(unknown.get(2));
        var meta = fields(binding.get(1));
        assertThat(text(meta, 1)).isEqualTo("we\"ird"); // name
        assertThat(text(meta, 3)).isEqualTo("ns"); // namespace
        assertThat(text(meta, 5)).isEqualTo("u-1"); // uid: the precondition
        var target = fields(binding.get(2));
        assertThat(text(target, 1)).isEqualTo("Node"); // kind
        assertThat(text(target, 3)).isEqualTo("node-7"); // name
        assertThat(text(target, 5)).isEqualTo("v1"); // apiVersion
    }

    @Test
    void withoutTheLeaseNoBindingIsPostedNotEvenARetry() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean leading = new java.util.concurrent.atomic.AtomicBoolean(false);
        try (KubeBinder fenced = new KubeBinder(api.clients().requests(), FAST, KubeBinder.Encoding.PROTOBUF, leading::get)) {
            assertFails(fenced.bind(POD, "node-7"), "does not hold its Lease");
            assertThat(requests()).isEmpty();

            // the Lease is lost between a failed POST and its retry: the retry is not posted
            leading.set(true);
            api.server().expect().post().withPath(BINDING).andReply(500, r -> {
                leading.set(false);
                return status(500, "InternalError", "etcd leader changed");
            }).once();
            assertFails(fenced.bind(POD, "node-7"), "does not hold its Lease");
            assertThat(requests()).filteredOn(r -> r.getMethod().equals("POST")).hasSize(1);
        }
    }

    @Test
    void retriesServerErrorsUntilItBinds() throws Exception {
        expectPost(500, status(500, "InternalError", "etcd leader changed"));
        expectPost(503, "service unavailable");
        expectPost(201, SUCCESS);

        assertBound(binder.bind(POD, "node-7"));
        // after each 5xx the pod is read once: a pod being deleted is never retried
        assertThat(requests()).filteredOn(r -> r.getMethod().equals("POST")).hasSize(3);
    }

    @Test
    void aPodBeingDeletedFailsAtOnceInsteadOfBeingRetried() throws Exception {
        // what kube-apiserver answers a Binding of a pod with a deletionTimestamp (seen on the real control plane)
        expectPost(500, status(500, "InternalError", "pod worker-0 is being deleted, cannot be assigned to a host"));
        api.server().expect().get().withPath(POD_PATH).andReturn(200, "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":"
                + "{\"name\":\"worker-0\",\"namespace\":\"team-a\",\"uid\":\"uid-1\",\"deletionTimestamp\":\"2026-11-23T09:00:00Z\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"main\",\"image\":\"x\"}]}}").once();

        assertFails(binder.bind(POD, "node-7"), "pod team-a/worker-0 is being deleted");
        assertThat(requests()).filteredOn(r -> r.getMethod().equals("POST")).hasSize(1);
    }

    @Test
    void retriesThrottling() throws Exception {
        api.server().expect().post().withPath(BINDING).andReturn(429, status(429, "TooManyRequests", "slow down"))
                .withHeader("Retry-After", "1").once();
        expectPost(201, SUCCESS);

        assertBound(binder.bind(POD, "node-7"));
        assertThat(requests()).hasSize(2);
    }

    @Test
    void alreadyBoundToTheSameNodeIsSuccess() {
        expectPost(409, status(409, "Conflict", "pod worker-0 is already assigned to node \\\"node-7\\\""));
        api.server().expect().get().withPath(POD_PATH).andReturn(200, pod("uid-1", "node-7")).once();

        assertBound(binder.bind(POD, "node-7"));
    }

    @Test
    void alreadyBoundElsewhereFailsNamingBothNodes() {
        expectPost(409, status(409, "Conflict", "pod worker-0 is already assigned to node \\\"node-2\\\""));
        api.server().expect().get().withPath(POD_PATH).andReturn(200, pod("uid-1", "node-2")).once();

        assertFails(binder.bind(POD, "node-7"), "pod team-a/worker-0 is already bound to node node-2, not node-7");
    }

    @Test
    void aPodRecreatedUnderTheSameNameIsNotBound() {
        expectPost(409, status(409, "Conflict", "Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2"));
        api.server().expect().get().withPath(POD_PATH).andReturn(200, pod("uid-2", null)).once();

        assertFails(binder.bind(POD, "node-7"), "was deleted and recreated (uid uid-2, expected uid-1)");
    }

    @Test
    void aConflictOnAStillUnboundPodIsRetried() {
        expectPost(409, status(409, "Conflict", "try again"));
        api.server().expect().get().withPath(POD_PATH).andReturn(200, pod("uid-1", null)).once();
        expectPost(201, SUCCESS);

        assertBound(binder.bind(POD, "node-7"));
    }

    @Test
    void aDeletedPodFailsClearly() {
        expectPost(404, status(404, "NotFound", "pods \\\"worker-0\\\" not found"));

        assertFails(binder.bind(POD, "node-7"), "bind team-a/worker-0 to node-7: pod team-a/worker-0 no longer exists");
    }

    @Test
    void aPodDeletedDuringTheConflictCheckFailsClearly() {
        expectPost(409, status(409, "Conflict", "already assigned"));
        api.server().expect().get().withPath(POD_PATH).andReturn(404, status(404, "NotFound", "gone")).once();

        assertFails(binder.bind(POD, "node-7"), "pod team-a/worker-0 no longer exists");
    }

    @Test
    void otherClientErrorsFailWithTheApiMessage() {
        expectPost(403, status(403, "Forbidden", "system:serviceaccount:muster:muster cannot create pods/binding"));

        assertFails(binder.bind(POD, "node-7"), "HTTP 403: system:serviceaccount:muster:muster cannot create pods/binding");
    }

    @Test
    void givesUpWhenTheBudgetIsSpent() {
        binder.close();
        binder = new KubeBinder(api.clients().requests(), new BindOptions(Duration.ofMillis(200), Duration.ofMillis(5), Duration.ofMillis(20), 4));
        api.server().expect().post().withPath(BINDING).andReturn(500, status(500, "InternalError", "still broken")).always();

        assertFails(binder.bind(POD, "node-7"), "gave up after");
        assertFails(binder.bind(POD, "node-7"), "still broken");
    }

    @Test
    void anUnreachableApiServerIsRetriedThenReported() {
        binder.close();
        binder = new KubeBinder(api.clients().requests(), new BindOptions(Duration.ofMillis(200), Duration.ofMillis(5), Duration.ofMillis(20), 4));
        api.close();

        assertFails(binder.bind(POD, "node-7"), "API server unreachable");
        api = MockKubeApi.expectations(); // for @AfterEach
    }

    @Test
    void manyConcurrentBindsAllComplete() {
        List<CompletableFuture<Void>> binds = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            String path = "/api/v1/namespaces/team-a/pods/w" + i + "/binding";
            api.server().expect().post().withPath(path).andReturn(500, status(500, "InternalError", "blip")).once();
            api.server().expect().post().withPath(path).andReturn(201, SUCCESS).once();
            binds.add(binder.bind(new PodId("u" + i, "team-a", "w" + i), "node-" + (i % 5)).toCompletableFuture());
        }
        assertThat(CompletableFuture.allOf(binds.toArray(CompletableFuture[]::new))).succeedsWithin(WAIT);
    }

    @Test
    void closingTheBinderFailsBindsInFlight() {
        binder.close();
        binder = new KubeBinder(api.clients().requests(), new BindOptions(Duration.ofMinutes(5), Duration.ofMillis(50), Duration.ofMillis(100), 4));
        api.server().expect().post().withPath(BINDING).andReturn(500, status(500, "InternalError", "broken")).always();

        CompletionStage<Void> bind = binder.bind(POD, "node-7");
        binder.close();

        assertFails(bind, "binder closed");
        assertFails(binder.bind(POD, "node-7"), "binder closed");
    }
}
