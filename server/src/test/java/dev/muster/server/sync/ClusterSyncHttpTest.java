package dev.muster.server.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.muster.common.kube.MockKubeApi;
import dev.muster.common.kube.VolcanoCrds;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.QueueState;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real informers over HTTP against the fabric8 mock (CRUD mode): the initial list of every resource reaches the
 * sink before markSynced, which is called once. (The mock serves watches only over WebSocket, so this covers list
 * and the sync barrier; watch-driven changes are covered through {@link ClusterEventHandler}.)
 */
class ClusterSyncHttpTest {
    private MockKubeApi api;
    private ClusterSync sync;

    @BeforeEach
    void start() {
        api = MockKubeApi.crud();
    }

    @AfterEach
    void stop() {
        if (sync != null) {
            sync.close();
        }
        api.close();
    }

    @Test
    void initialListOfEveryResourceReachesTheSinkBeforeMarkSynced() {
        var k = api.fabric8();
        for (int i = 0; i < 3; i++) {
            k.nodes().resource(new NodeBuilder().withNewMetadata().withName("n" + i).endMetadata()
                    .withNewStatus().withAllocatable(Map.of("cpu", new Quantity("8"), "memory", new Quantity("32Gi"))).endStatus().build()).create();
        }
        for (int i = 0; i < 5; i++) {
            k.pods().inNamespace("team-a").resource(new PodBuilder()
                    .withNewMetadata().withName("w" + i).withNamespace("team-a").withUid("uid-w" + i)
                    .addToAnnotations("scheduling.k8s.io/group-name", "train").endMetadata()
                    .withNewSpec().withNodeName(i < 3 ? "n" + i : null).addNewContainer().withName("main").withImage("x")
                    .withNewResources().addToRequests("cpu", new Quantity("2")).endResources().endContainer().endSpec()
                    .withNewStatus().withPhase(i < 3 ? "Running" : "Pending").endStatus().build()).create();
        }
        k.genericKubernetesResources(VolcanoCrds.API_VERSION, VolcanoCrds.PODGROUP_KIND).inNamespace("team-a")
                .resource(new GenericKubernetesResourceBuilder().withApiVersion(VolcanoCrds.API_VERSION).withKind(VolcanoCrds.PODGROUP_KIND)
                        .withNewMetadata().withName("train").withNamespace("team-a").endMetadata()
                        .withAdditionalProperties(Map.of("spec", Map.of("minMember", 5, "queue", "research"))).build()).create();
        k.genericKubernetesResources(VolcanoCrds.API_VERSION, VolcanoCrds.QUEUE_KIND)
                .resource(new GenericKubernetesResourceBuilder().withApiVersion(VolcanoCrds.API_VERSION).withKind(VolcanoCrds.QUEUE_KIND)
                        .withNewMetadata().withName("research").endMetadata()
                        .withAdditionalProperties(Map.of("spec", Map.of("weight", 2))).build()).create();

        RecordingClusterSink sink = new RecordingClusterSink();
        sync = new ClusterSync(api.clients().watches(), sink, Duration.ZERO);
        sync.start();

        await().atMost(Duration.ofSeconds(30)).until(sync::isSynced);
        assertThat(sink.syncedCount()).isEqualTo(1);
        var state = sink.state();
        assertThat(state.nodes()).containsOnlyKeys("n0", "n1", "n2");
        assertThat(state.pods()).hasSize(5);
        assertThat(state.pods().values()).filteredOn(p -> p.holdsResources()).hasSize(3);
        assertThat(state.pods().values()).allSatisfy(p -> assertThat(p.gang()).isEqualTo(new GangKey("team-a", "train")));
        assertThat(state.podGroups().get(new GangKey("team-a", "train")).minMember()).isEqualTo(5);
        assertThat(state.queues().get("research").state()).isEqualTo(QueueState.OPEN);
        assertThat(sink.calls()).last().isEqualTo("markSynced");
    }

    @Test
    void withPreemptionTheBudgetsAreListedBeforeMarkSyncedAndReadBoundPodsLabelsFromThePodCache() {
        var k = api.fabric8();
        for (int i = 0; i < 3; i++) {
            k.pods().inNamespace("team-a").resource(new PodBuilder()
                    .withNewMetadata().withName("w" + i).withNamespace("team-a").withUid("uid-w" + i).addToLabels("app", "train").endMetadata()
                    .withNewSpec().withNodeName("n0").addNewContainer().withName("main").withImage("x").endContainer().endSpec()
                    .withNewStatus().withPhase("Running").endStatus().build()).create();
        }
        k.policy().v1().podDisruptionBudget().inNamespace("team-a").resource(new io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder()
                .withNewMetadata().withName("train").withNamespace("team-a").withGeneration(1L).endMetadata()
                .withNewSpec().withNewSelector().addToMatchLabels("app", "train").endSelector()
                .withMinAvailable(new io.fabric8.kubernetes.api.model.IntOrString(2)).endSpec()
                .withNewStatus().withDisruptionsAllowed(1).withObservedGeneration(1L).withCurrentHealthy(3).withDesiredHealthy(2)
                .withExpectedPods(3).endStatus().build()).create();

        dev.muster.server.evict.KubeDisruptionBudgets budgets = new dev.muster.server.evict.KubeDisruptionBudgets();
        RecordingClusterSink sink = new RecordingClusterSink();
        sync = new ClusterSync(api.clients().watches(), sink, Duration.ZERO, "muster", Duration.ofMinutes(1), budgets);
        sync.start();

        await().atMost(Duration.ofSeconds(30)).until(sync::isSynced);
        assertThat(budgets.size()).isEqualTo(1);
        // (the mock gives every object its own uid)
        var w0 = new dev.muster.core.model.PodId(k.pods().inNamespace("team-a").withName("w0").get().getMetadata().getUid(), "team-a", "w0");
        var w1 = new dev.muster.core.model.PodId(k.pods().inNamespace("team-a").withName("w1").get().getMetadata().getUid(), "team-a", "w1");
        assertThat(budgets.blocking(java.util.List.of(w0))).isNull();
        assertThat(budgets.blocking(java.util.List.of(w0, w1))).isEqualTo("team-a/train");
    }

    @Test
    void anEmptyClusterSyncsToo() {
        RecordingClusterSink sink = new RecordingClusterSink();
        sync = new ClusterSync(api.clients().watches(), sink, Duration.ZERO);
        sync.start();

        await().atMost(Duration.ofSeconds(30)).until(sync::isSynced);
        assertThat(sink.calls()).containsExactly("markSynced");
    }
}
