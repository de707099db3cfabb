package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Volcano PodGroups and Queues created the way a user would (fabric8 client), read by Muster's client-java code. */
class VolcanoCrdsHttpTest {
    private MockKubeApi api;

    @BeforeEach
    void start() {
        api = MockKubeApi.crud();
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private void createPodGroup(String namespace, String name, Map<String, Object> spec) {
        api.fabric8().genericKubernetesResources(VolcanoCrds.API_VERSION, VolcanoCrds.PODGROUP_KIND).inNamespace(namespace)
                .resource(new GenericKubernetesResourceBuilder().withApiVersion(VolcanoCrds.API_VERSION).withKind(VolcanoCrds.PODGROUP_KIND)
                        .withNewMetadata().withName(name).withNamespace(namespace).endMetadata()
                        .withAdditionalProperties(Map.of("spec", spec)).build())
                .create();
    }

    private void createQueue(String name, Map<String, Object> spec, String state) {
        GenericKubernetesResource created = api.fabric8().genericKubernetesResources(VolcanoCrds.API_VERSION, VolcanoCrds.QUEUE_KIND)
                .resource(new GenericKubernetesResourceBuilder().withApiVersion(VolcanoCrds.API_VERSION).withKind(VolcanoCrds.QUEUE_KIND)
                        .withNewMetadata().withName(name).endMetadata()
                        .withAdditionalProperties(Map.of("spec", spec)).build())
                .create();
        if (state != null) {
            created.setAdditionalProperty("status", Map.of("state", state));
            api.fabric8().genericKubernetesResources(VolcanoCrds.API_VERSION, VolcanoCrds.QUEUE_KIND).resource(created).updateStatus();
        }
    }

    @Test
    void listsPodGroupsAcrossNamespacesAndConvertsThem() {
        createPodGroup("team-a", "train", Map.of("minMember", 4, "queue", "research", "minResources", Map.of("cpu", 8, "memory", "16Gi")));
        createPodGroup("team-b", "infer", Map.of("minMember", 2));

        KubernetesApiResponse<VolcanoCrds.PodGroupList> list = VolcanoCrds.podGroups(api.clients().requests()).list();

        assertThat(list.isSuccess()).as(String.valueOf(list.getStatus())).isTrue();
        assertThat(list.getObject().getItems()).extracting(PodGroupConverter::toCore).containsExactlyInAnyOrder(
                new PodGroupSpec(new GangKey("team-a", "train"), 4, Map.of(), res("cpu=8,memory=16Gi"), "research", "", null),
                PodGroupSpec.of(new GangKey("team-b", "infer"), 2, "default"));
        assertThat(list.getObject().getItems()).allSatisfy(pg -> assertThat(pg.getMetadata().getResourceVersion()).isNotEmpty());
    }

    @Test
    void readsOnePodGroupInItsNamespace() {
        createPodGroup("team-a", "train", Map.of("minMember", 3, "minTaskMember", Map.of("worker", 3)));

        KubernetesApiResponse<VolcanoPodGroup> got = VolcanoCrds.podGroups(api.clients().requests()).get("team-a", "train");

        assertThat(got.isSuccess()).isTrue();
        assertThat(PodGroupConverter.toCore(got.getObject()))
                .isEqualTo(new PodGroupSpec(new GangKey("team-a", "train"), 3, Map.of("worker", 3), Resources.ZERO, "default", "", null));
        assertThat(VolcanoCrds.podGroups(api.clients().requests()).list("team-b").getObject().getItems()).isEmpty();
    }

    @Test
    void listsClusterScopedQueuesWithStatusState() {
        createQueue("default", Map.of("weight", 1, "reclaimable", true), "Open");
        createQueue("research", Map.of("weight", 3, "capability", Map.of("cpu", "64", "nvidia.com/gpu", 8)), "Closed");

        KubernetesApiResponse<VolcanoCrds.QueueList> list = VolcanoCrds.queues(api.clients().requests()).list();

        assertThat(list.isSuccess()).as(String.valueOf(list.getStatus())).isTrue();
        assertThat(list.getObject().getItems()).extracting(QueueConverter::toCore).containsExactlyInAnyOrder(
                new QueueSpec("default", QueueState.OPEN, 1, null, Resources.ZERO, Resources.ZERO, true),
                new QueueSpec("research", QueueState.CLOSED, 3, res("cpu=64,nvidia.com/gpu=8"), Resources.ZERO, Resources.ZERO, true));
    }
}
