package dev.muster.server.sync;

import static dev.muster.common.kube.KubeObjects.node;
import static dev.muster.common.kube.KubeObjects.pod;
import static dev.muster.common.kube.KubeObjects.podGroup;
import static dev.muster.common.kube.KubeObjects.queue;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.kube.KubeClients;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodPhase;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The real informers over HTTP: list, then watch events (add, modify, delete) and a relist after 410 Gone. */
class ClusterSyncWatchTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private ScriptedApiServer api;
    private ClusterSync sync;
    private final RecordingClusterSink sink = new RecordingClusterSink();

    @BeforeEach
    void start() {
        api = new ScriptedApiServer();
        api.put(ScriptedApiServer.NODES, node("n1").allocatable("cpu=8,memory=32Gi,pods=110").build());
        api.put(ScriptedApiServer.QUEUES, queue("default", "{}", null));
        api.put(ScriptedApiServer.PODGROUPS, podGroup("team-a", "train", "{\"minMember\": 2}"));
        api.put(ScriptedApiServer.PODS, pod("team-a", "w0").uid("u0").gang("train").container("main", "cpu=2").build());
        sync = new ClusterSync(KubeClients.forUrl(api.url()).watches(), sink, Duration.ZERO);
        sync.start();
        await().atMost(WAIT).until(sync::isSynced);
    }

    @AfterEach
    void stop() {
        sync.close();
        api.close();
    }

    @Test
    void watchEventsReachTheSinkAfterTheInitialSync() {
        assertThat(sink.state().pods()).containsOnlyKeys("u0");
        assertThat(sink.state().podGroups()).containsOnlyKeys(new GangKey("team-a", "train"));

        V1Pod bound = pod("team-a", "w0").uid("u0").gang("train").container("main", "cpu=2").node("n1").phase("Running").build();
        api.put(ScriptedApiServer.PODS, bound);
        api.put(ScriptedApiServer.PODS, pod("team-a", "w1").uid("u1").gang("train").container("main", "cpu=2").build());
        api.put(ScriptedApiServer.NODES, node("n1").allocatable("cpu=2,memory=8Gi,pods=110").build()); // shrinks under w0

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(sink.pod("u0")).isNotNull();
            assertThat(sink.pod("u0").nodeName()).isEqualTo("n1");
            assertThat(sink.state().pods()).containsOnlyKeys("u0", "u1");
            assertThat(sink.node("n1").allocatable().cpuMillis()).isEqualTo(2000);
        });

        V1Pod done = pod("team-a", "w0").uid("u0").gang("train").container("main", "cpu=2").node("n1").phase("Succeeded").build();
        api.put(ScriptedApiServer.PODS, done);
        await().atMost(WAIT).untilAsserted(() -> assertThat(sink.pod("u0").phase()).isEqualTo(PodPhase.SUCCEEDED));
        api.delete(ScriptedApiServer.PODS, done);
        api.delete(ScriptedApiServer.PODGROUPS, podGroup("team-a", "train", "{}"));

        await().atMost(WAIT).untilAsserted(() -> {
            assertThat(sink.state().pods()).containsOnlyKeys("u1");
            assertThat(sink.state().podGroups()).isEmpty();
        });
        assertThat(sink.syncedCount()).isEqualTo(1);
        assertThat(sync.skippedObjects()).isZero();
    }

    @Test
    void aDeleteMissedWhileTheWatchWasDownArrivesAfterTheRelist() {
        api.deleteSilently(ScriptedApiServer.PODS, pod("team-a", "w0").uid("u0").build());
        api.expireWatch(ScriptedApiServer.PODS);

        await().atMost(WAIT).untilAsserted(() -> assertThat(sink.state().pods()).isEmpty());
        assertThat(sink.calls()).contains("deletePod u0");
        assertThat(sink.syncedCount()).isEqualTo(1);
    }
}
