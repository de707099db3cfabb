package dev.muster.server.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonArray;
import com.google.gson.JsonParser;
import dev.muster.common.kube.MockKubeApi;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.model.PodId;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** KubeGateLifter over real HTTP against the fabric8 mock in expectations mode, its sender driven by the test. */
class KubeGateLifterTest {
    private static final PodId A = new PodId("uid-a", "team-a", "worker-0");
    private static final String A_PATH = "/api/v1/namespaces/team-a/pods/worker-0";
    private static final String GATED = pod("uid-a", "[{\"name\":\"example.com/other\"},{\"name\":\"" + QueueGate.NAME + "\"}]", null);

    private MockKubeApi api;
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private KubeGateLifter lifter;

    static String pod(String uid, String gates, String annotations) {
        return "{\"metadata\":{\"name\":\"worker-0\",\"namespace\":\"team-a\",\"uid\":\"" + uid + "\""
                + (annotations == null ? "" : ",\"annotations\":" + annotations) + "},\"spec\":{\"schedulingGates\":" + gates + "}}";
    }

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
        lifter = new KubeGateLifter(api.clients().requests(), leading::get, 50, false);
    }

    @AfterEach
    void stop() {
        lifter.close();
        api.close();
    }

    private static JsonArray body(RecordedRequest r) {
        return JsonParser.parseString(r.getBody().readUtf8()).getAsJsonArray();
    }

    @Test
    void aLiftIsAJsonPatchThatTestsTheUidAndTheGateAndRemovesThatEntryAlone() throws Exception {
        api.server().expect().get().withPath(A_PATH).andReturn(200, GATED).once();
        api.server().expect().patch().withPath(A_PATH).andReturn(200, "{}").once();
        CompletionStage<String> done = lifter.lift(A, Map.of());
        lifter.sendPending();

        assertThat(done.toCompletableFuture().join()).isNull();
        List<RecordedRequest> sent = api.takeRequests();
        assertThat(sent).extracting(RecordedRequest::getMethod).containsExactly("GET", "PATCH");
        assertThat(sent.get(1).getHeader("Content-Type")).startsWith(KubeGateLifter.PATCH_TYPE);
        assertThat(body(sent.get(1)).toString()).isEqualTo("[{\"op\":\"test\",\"path\":\"/metadata/uid\",\"value\":\"uid-a\"},"
                + "{\"op\":\"test\",\"path\":\"/spec/schedulingGates/1/name\",\"value\":\"" + QueueGate.NAME + "\"},"
                + "{\"op\":\"remove\",\"path\":\"/spec/schedulingGates/1\"}]");
        assertThat(lifter.count(KubeGateLifter.Outcome.LIFTED)).isEqualTo(1);
    }

    @Test
    void theHoldsAnnotationsAreAddedInTheSamePatch() throws Exception {
        api.server().expect().get().withPath(A_PATH).andReturn(200,
                pod("uid-a", "[{\"name\":\"" + QueueGate.NAME + "\"}]", "{\"team\":\"a\"}")).once();
        api.server().expect().patch().withPath(A_PATH).andReturn(200, "{}").once();
        lifter.lift(A, Map.of("cluster-autoscaler.kubernetes.io/consume-provisioning-request", "train-8f3c"));
        lifter.sendPending();

        JsonArray ops = body(api.takeRequests().get(1));
        assertThat(ops.get(3).toString()).isEqualTo("{\"op\":\"add\",\"path\":"
                + "\"/metadata/annotations/cluster-autoscaler.kubernetes.io~1consume-provisioning-request\",\"value\":\"train-8f3c\"}");
    }

    @Test
    void aConflictReadsThePodAgainAndPatchesWhatItShowsNow() throws Exception {
        api.server().expect().get().withPath(A_PATH).andReturn(200, GATED).once();
        api.server().expect().patch().withPath(A_PATH).andReturn(422, "{\"kind\":\"Status\",\"code\":422}").once();
        api.server().expect().get().withPath(A_PATH).andReturn(200, pod("uid-a", "[{\"name\":\"" + QueueGate.NAME + "\"}]", null)).once();
        api.server().expect().patch().withPath(A_PATH).andReturn(200, "{}").once();
        CompletionStage<String> done = lifter.lift(A, Map.of());
        lifter.sendPending();

        assertThat(done.toCompletableFuture().join()).isNull();
        List<RecordedRequest> sent = api.takeRequests();
        assertThat(sent).extracting(RecordedRequest::getMethod).containsExactly("GET", "PATCH", "GET", "PATCH");
        assertThat(body(sent.get(3)).get(2).toString()).isEqualTo("{\"op\":\"remove\",\"path\":\"/spec/schedulingGates/0\"}");
    }

    @Test
    void aPodWithoutTheGateOrRecreatedUnderItsNameIsLeftAloneAndTheLiftIsDone() throws Exception {
        api.server().expect().get().withPath(A_PATH).andReturn(200, pod("uid-a", "[{\"name\":\"example.com/other\"}]", null)).once();
        CompletionStage<String> done = lifter.lift(A, Map.of());
        lifter.sendPending();
        api.server().expect().get().withPath(A_PATH).andReturn(200, pod("uid-new", "[{\"name\":\"" + QueueGate.NAME + "\"}]", null)).once();
        CompletionStage<String> recreated = lifter.lift(A, Map.of());
        lifter.sendPending();

        assertThat(done.toCompletableFuture().join()).isNull();
        assertThat(recreated.toCompletableFuture().join()).isNull();
        assertThat(api.takeRequests()).extracting(RecordedRequest::getMethod).containsExactly("GET", "GET");
        assertThat(lifter.count(KubeGateLifter.Outcome.GONE)).isEqualTo(2);
    }

    @Test
    void aStandbyLiftsNothingAndARefusalIsNotRetried() throws Exception {
        leading.set(false);
        CompletionStage<String> dropped = lifter.lift(A, Map.of());
        lifter.sendPending();
        assertThat(dropped.toCompletableFuture().join()).contains("does not lead");
        assertThat(lifter.ready()).isFalse();

        leading.set(true);
        api.server().expect().get().withPath(A_PATH).andReturn(200, GATED).once();
        api.server().expect().patch().withPath(A_PATH).andReturn(403, "{\"kind\":\"Status\",\"code\":403}").once();
        CompletionStage<String> refused = lifter.lift(A, Map.of());
        lifter.sendPending();
        assertThat(refused.toCompletableFuture().join()).contains("403");
        assertThat(api.takeRequests()).extracting(RecordedRequest::getMethod).containsExactly("GET", "PATCH");
    }
}
