package dev.muster.server.wake;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.muster.common.kube.MockKubeApi;
import dev.muster.core.model.PodId;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** KubePodWaker over real HTTP against the fabric8 mock in expectations mode, its sender driven by the test. */
class KubePodWakerTest {
    private static final PodId A = new PodId("uid-a", "team-a", "worker-0");
    private static final PodId B = new PodId("uid-b", "team-a", "worker-1");
    private static final String A_STATUS = "/api/v1/namespaces/team-a/pods/worker-0/status";
    private static final String B_STATUS = "/api/v1/namespaces/team-a/pods/worker-1/status";

    private MockKubeApi api;
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private KubePodWaker waker;

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
        waker = new KubePodWaker(api.clients().requests(), leading::get, 50, 3, false);
    }

    @AfterEach
    void stop() {
        waker.close();
        api.close();
    }

    private List<RecordedRequest> requests() throws InterruptedException {
        return api.takeRequests();
    }

    @Test
    void aWakeIsAStrategicMergePatchOfMustersOwnConditionOnThePodsStatusNamingItsUid() throws InterruptedException {
        api.server().expect().patch().withPath(A_STATUS).andReturn(200, "{}").once();
        waker.wake(List.of(A), "queue q changed");
        waker.sendPending();

        List<RecordedRequest> sent = requests();
        assertThat(sent).hasSize(1);
        assertThat(sent.getFirst().getMethod()).isEqualTo("PATCH");
        assertThat(sent.getFirst().getPath()).isEqualTo(A_STATUS); // the status subresource: no spec, label or annotation
        assertThat(sent.getFirst().getHeader("Content-Type")).startsWith(KubePodWaker.PATCH_TYPE);
        JsonObject body = JsonParser.parseString(sent.getFirst().getBody().readUtf8()).getAsJsonObject();
        assertThat(body.getAsJsonObject("metadata").get("uid").getAsString()).isEqualTo("uid-a");
        JsonObject condition = body.getAsJsonObject("status").getAsJsonArray("conditions").get(0).getAsJsonObject();
        assertThat(condition.get("type").getAsString()).isEqualTo(KubePodWaker.CONDITION);
        assertThat(condition.get("status").getAsString()).isEqualTo("True");
        assertThat(condition.get("message").getAsString()).startsWith("queue q changed: kube-scheduler was asked to try this pod again");
        assertThat(body.keySet()).containsExactlyInAnyOrder("metadata", "status");
        assertThat(waker.count(KubePodWaker.Outcome.SENT)).isEqualTo(1);
    }

    @Test
    void twoWakesOfOnePodInTheSameSecondDifferSoNeitherIsANoOpTheApiServerWouldDrop() {
        Instant now = Instant.parse("2026-01-01T00:00:00.100Z");
        String first = new String(KubePodWaker.body(A, "x", 1, now), StandardCharsets.UTF_8);
        String second = new String(KubePodWaker.body(A, "x", 2, now.plusMillis(500)), StandardCharsets.UTF_8);
        assertThat(first).isNotEqualTo(second);
        assertThat(first).contains("\"lastTransitionTime\":\"2026-01-01T00:00:00Z\""); // the API's seconds
    }

    @Test
    void aPodWokenAgainBeforeItsPatchWasSentIsPatchedOnceWithTheLatestReason() throws InterruptedException {
        api.server().expect().patch().withPath(A_STATUS).andReturn(200, "{}").always();
        api.server().expect().patch().withPath(B_STATUS).andReturn(200, "{}").always();
        waker.wake(List.of(A, B), "queue q changed");
        waker.wake(List.of(A), "reserved room was given back");
        assertThat(waker.pending()).isEqualTo(2);
        waker.sendPending();

        List<RecordedRequest> sent = requests();
        assertThat(sent).extracting(RecordedRequest::getPath).containsExactly(B_STATUS, A_STATUS);
        assertThat(sent.get(1).getBody().readUtf8()).contains("reserved room was given back");
    }

    @Test
    void beyondTheBoundTheOldestWakesAreDroppedAndCounted() {
        waker.wake(List.of(new PodId("1", "n", "p1"), new PodId("2", "n", "p2"), new PodId("3", "n", "p3"), new PodId("4", "n", "p4"),
                new PodId("5", "n", "p5")), "queue q changed");
        assertThat(waker.pending()).isEqualTo(3);
        assertThat(waker.count(KubePodWaker.Outcome.DROPPED)).isEqualTo(2);
    }

    @Test
    void aProcessThatDoesNotLeadSendsNothing() throws InterruptedException {
        leading.set(false);
        waker.wake(List.of(A), "queue q changed");
        waker.sendPending();
        assertThat(requests()).isEmpty();
        assertThat(waker.count(KubePodWaker.Outcome.DROPPED)).isEqualTo(1);
    }

    @Test
    void aPodGoneOrRecreatedUnderItsNameIsNotAnError() {
        api.server().expect().patch().withPath(A_STATUS).andReturn(404, "{\"kind\":\"Status\",\"code\":404}").once();
        api.server().expect().patch().withPath(B_STATUS).andReturn(422, "{\"kind\":\"Status\",\"code\":422}").once();
        waker.wake(List.of(A, B), "queue q changed");
        waker.sendPending();
        assertThat(waker.count(KubePodWaker.Outcome.GONE)).isEqualTo(2);
        assertThat(waker.count(KubePodWaker.Outcome.FAILED)).isZero();
    }

    @Test
    void aServerErrorIsCountedAsFailedAndTheNextWakeStillGoesOut() {
        api.server().expect().patch().withPath(A_STATUS).andReturn(500, "boom").once();
        api.server().expect().patch().withPath(B_STATUS).andReturn(200, "{}").once();
        waker.wake(List.of(A, B), "queue q changed");
        waker.sendPending();
        assertThat(waker.count(KubePodWaker.Outcome.FAILED)).isEqualTo(1);
        assertThat(waker.count(KubePodWaker.Outcome.SENT)).isEqualTo(1);
    }
}
