package dev.muster.server.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.muster.common.kube.MockKubeApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** KubeGateEvents over real HTTP against the fabric8 mock in expectations mode, its sender driven by the test. */
class KubeGateEventsTest {
    private static final GangKey TRAIN = new GangKey("ml", "train");
    private static final PodId A = new PodId("uid-a", "ml", "train-0");
    private static final PodId B = new PodId("uid-b", "ml", "train-1");
    private static final String EVENTS = "/apis/events.k8s.io/v1/namespaces/ml/events";
    private static final Instant NOW = Instant.parse("2026-11-26T10:00:00Z");

    private MockKubeApi api;
    private final AtomicBoolean leading = new AtomicBoolean(true);
    private KubeGateEvents events;

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
        events = new KubeGateEvents(api.clients().requests(), leading::get, InstantSource.fixed(NOW), "muster-extender-0", 50, false);
    }

    @AfterEach
    void stop() {
        events.close();
        api.close();
    }

    private static JsonObject body(RecordedRequest r) {
        return JsonParser.parseString(r.getBody().readUtf8()).getAsJsonObject();
    }

    @Test
    void eachPodGetsAnEventRegardingItFromTheExtender() throws Exception {
        api.server().expect().post().withPath(EVENTS).andReturn(201, "{}").times(2);
        events.waiting(TRAIN, List.of(A, B), "gang ml/train: waiting for queue research: queue research is Closed");
        events.sendPending();

        List<RecordedRequest> sent = api.takeRequests();
        assertThat(sent).hasSize(2);
        JsonObject e = body(sent.get(0));
        assertThat(e.get("apiVersion").getAsString()).isEqualTo("events.k8s.io/v1");
        assertThat(e.get("reportingController").getAsString()).isEqualTo("muster.dev/extender");
        assertThat(e.get("reportingInstance").getAsString()).isEqualTo("muster-extender-0");
        assertThat(e.get("reason").getAsString()).isEqualTo(KubeGateEvents.WAITING);
        assertThat(e.get("type").getAsString()).isEqualTo("Normal");
        assertThat(e.get("eventTime").getAsString()).isEqualTo("2026-11-26T10:00:00.000000Z");
        assertThat(e.get("note").getAsString()).isEqualTo("gang ml/train: waiting for queue research: queue research is Closed");
        assertThat(e.getAsJsonObject("regarding").toString())
                .isEqualTo("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"namespace\":\"ml\",\"name\":\"train-0\",\"uid\":\"uid-a\"}");
        assertThat(e.getAsJsonObject("metadata").get("name").getAsString()).startsWith("train-0.");
        assertThat(events.count(KubeGateEvents.Outcome.SENT)).isEqualTo(2);
    }

    @Test
    void aNewerNoteForAPodReplacesTheOneNotSentYetAndALiftIsToldBesideIt() throws Exception {
        api.server().expect().post().withPath(EVENTS).andReturn(201, "{}").times(2);
        events.waiting(TRAIN, List.of(A), "first");
        events.waiting(TRAIN, List.of(A), "second");
        events.lifted(TRAIN, A, "lifted");
        assertThat(events.pending()).isEqualTo(2);
        events.sendPending();

        List<JsonObject> sent = api.takeRequests().stream().map(KubeGateEventsTest::body).toList();
        assertThat(sent).extracting(e -> e.get("note").getAsString()).containsExactly("second", "lifted");
        assertThat(sent.get(1).get("reason").getAsString()).isEqualTo(KubeGateEvents.LIFTED);
    }

    @Test
    void aStandbySendsNothingAndAFullQueueDropsNewOnes() throws Exception {
        leading.set(false);
        events.waiting(TRAIN, List.of(A), "waiting");
        events.sendPending();
        assertThat(api.takeRequests()).isEmpty();
        assertThat(events.count(KubeGateEvents.Outcome.DROPPED)).isEqualTo(1);

        for (int i = 0; i < KubeGateEvents.MAX_PENDING + 5; i++) {
            events.waiting(TRAIN, List.of(new PodId("uid-" + i, "ml", "p-" + i)), "waiting");
        }
        assertThat(events.pending()).isEqualTo(KubeGateEvents.MAX_PENDING);
        assertThat(events.count(KubeGateEvents.Outcome.DROPPED)).isEqualTo(6);
    }

    @Test
    void aRefusedEventCountsAsFailed() throws Exception {
        api.server().expect().post().withPath(EVENTS).andReturn(403, "{\"message\":\"forbidden\"}").once();
        events.lifted(TRAIN, A, "lifted");
        events.sendPending();
        assertThat(events.count(KubeGateEvents.Outcome.FAILED)).isEqualTo(1);
    }
}
