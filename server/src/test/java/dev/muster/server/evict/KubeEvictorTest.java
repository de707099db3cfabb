package dev.muster.server.evict;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.muster.common.kube.MockKubeApi;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.EvictionOutcome;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** KubeEvictor over real HTTP against the fabric8 mock in expectations mode. */
class KubeEvictorTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final PodId POD = new PodId("uid-1", "team-a", "worker-0");
    private static final String EVICTION = "/api/v1/namespaces/team-a/pods/worker-0/eviction";
    private static final String SUCCESS = "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Success\",\"code\":201}";

    private MockKubeApi api;
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private KubeEvictor evictor;

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
        evictor = new KubeEvictor(api.clients().requests(), leading::get);
    }

    @AfterEach
    void stop() {
        evictor.close();
        api.close();
    }

    private static String status(int code, String reason, String message) {
        return "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"" + message
                + "\",\"reason\":\"" + reason + "\",\"code\":" + code + "}";
    }

    private void expectPost(int code, String body) {
        api.server().expect().post().withPath(EVICTION).andReturn(code, body).once();
    }

    private static EvictionOutcome outcome(CompletionStage<EvictionOutcome> eviction) {
        assertThat(eviction.toCompletableFuture()).succeedsWithin(WAIT);
        return eviction.toCompletableFuture().join();
    }

    private List<RecordedRequest> requests() throws InterruptedException {
        return api.takeRequests();
    }

    @Test
    void postsAPolicyV1EvictionWithThePodsUidAsPreconditionAndAcceptsTheStatusReply() throws Exception {
        expectPost(201, SUCCESS);

        assertThat(outcome(evictor.evict(POD, "preempted by ml/big"))).isEqualTo(new EvictionOutcome.Evicted());

        List<RecordedRequest> sent = requests();
        assertThat(sent).hasSize(1);
        assertThat(sent.get(0).getMethod()).isEqualTo("POST");
        assertThat(sent.get(0).getPath()).isEqualTo(EVICTION);
        JsonObject body = JsonParser.parseString(sent.get(0).getUtf8Body()).getAsJsonObject();
        assertThat(body.get("apiVersion").getAsString()).isEqualTo("policy/v1");
        assertThat(body.get("kind").getAsString()).isEqualTo("Eviction");
        assertThat(body.getAsJsonObject("metadata").get("name").getAsString()).isEqualTo("worker-0");
        assertThat(body.getAsJsonObject("metadata").get("namespace").getAsString()).isEqualTo("team-a");
        assertThat(body.getAsJsonObject("deleteOptions").getAsJsonObject("preconditions").get("uid").getAsString()).isEqualTo("uid-1");
    }

    @Test
    void aDryRunIsTheSamePostWithDryRunAllAndAnswersTheSameOutcomes() throws Exception {
        api.server().expect().post().withPath(EVICTION + "?dryRun=All").andReturn(201, SUCCESS).once();
        api.server().expect().post().withPath(EVICTION + "?dryRun=All")
                .andReturn(429, status(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget.")).once();

        assertThat(outcome(evictor.check(POD))).isEqualTo(new EvictionOutcome.Evicted());
        assertThat(outcome(evictor.check(POD))).isEqualTo(new EvictionOutcome.RefusedByBudget(
                "Cannot evict pod as it would violate the pod's disruption budget."));
        List<RecordedRequest> sent = requests();
        assertThat(sent).extracting(RecordedRequest::getPath).containsOnly(EVICTION + "?dryRun=All");
        assertThat(JsonParser.parseString(sent.get(0).getUtf8Body()).getAsJsonObject()
                .getAsJsonObject("deleteOptions").getAsJsonObject("preconditions").get("uid").getAsString()).isEqualTo("uid-1");
    }

    @Test
    void aPlain200IsAnEvictionToo() {
        expectPost(200, SUCCESS);
        assertThat(outcome(evictor.evict(POD, "why"))).isEqualTo(new EvictionOutcome.Evicted());
    }

    @Test
    void aPodThatNoLongerExistsIsGone() {
        expectPost(404, status(404, "NotFound", "pods \\\"worker-0\\\" not found"));
        assertThat(outcome(evictor.evict(POD, "why"))).isEqualTo(new EvictionOutcome.Gone());
    }

    @Test
    void aPodRecreatedUnderTheSameNameIsGoneAndNotEvicted() {
        expectPost(409, status(409, "Conflict",
                "Operation cannot be fulfilled on Pod \\\"worker-0\\\": Precondition failed: UID in precondition: uid-1, UID in object meta: uid-2"));
        assertThat(outcome(evictor.evict(POD, "why"))).isEqualTo(new EvictionOutcome.Gone());
    }

    @Test
    void anotherConflictIsAFailureNamingTheStatus() {
        expectPost(409, status(409, "Conflict", "the object has been modified"));
        assertThat(outcome(evictor.evict(POD, "why"))).isInstanceOfSatisfying(EvictionOutcome.Failed.class,
                f -> assertThat(f.message()).contains("HTTP 409", "the object has been modified", "team-a/worker-0"));
    }

    @Test
    void aDisruptionBudgetsRefusalCarriesTheApiServersMessage() {
        expectPost(429, status(429, "TooManyRequests", "Cannot evict pod as it would violate the pod's disruption budget."));
        assertThat(outcome(evictor.evict(POD, "why")))
                .isEqualTo(new EvictionOutcome.RefusedByBudget("Cannot evict pod as it would violate the pod's disruption budget."));
    }

    @Test
    void forbiddenAndServerErrorsAreFailuresNamingTheStatusWithoutRetry() throws Exception {
        expectPost(403, status(403, "Forbidden", "pods \\\"worker-0\\\" is forbidden: cannot create resource \\\"pods/eviction\\\""));
        assertThat(outcome(evictor.evict(POD, "why"))).isInstanceOfSatisfying(EvictionOutcome.Failed.class,
                f -> assertThat(f.message()).contains("HTTP 403", "pods/eviction"));
        expectPost(500, "not json at all");
        assertThat(outcome(evictor.evict(POD, "why"))).isInstanceOfSatisfying(EvictionOutcome.Failed.class,
                f -> assertThat(f.message()).contains("HTTP 500", "not json at all"));
        assertThat(requests()).hasSize(2);
    }

    @Test
    void anUnreachableApiServerIsAFailureNotAnException() {
        api.close();
        assertThat(outcome(evictor.evict(POD, "why"))).isInstanceOfSatisfying(EvictionOutcome.Failed.class,
                f -> assertThat(f.message()).contains("unreachable"));
    }

    @Test
    void withoutTheLeaseNoEvictionIsPosted() throws Exception {
        leading.set(false);
        assertThat(outcome(evictor.evict(POD, "why"))).isInstanceOfSatisfying(EvictionOutcome.Failed.class,
                f -> assertThat(f.message()).contains("does not hold its Lease"));
        assertThat(requests()).isEmpty();
    }

    @Test
    void aClosedEvictorFailsAtOnce() throws Exception {
        evictor.close();
        assertThat(outcome(evictor.evict(POD, "why"))).isInstanceOfSatisfying(EvictionOutcome.Failed.class,
                f -> assertThat(f.message()).contains("evictor closed"));
        assertThat(requests()).isEmpty();
    }
}
