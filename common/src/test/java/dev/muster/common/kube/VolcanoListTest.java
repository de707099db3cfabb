package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.JSON;
import org.junit.jupiter.api.Test;

/** The one generic list type, deserialized the way client-java's GenericKubernetesApi does it (Gson, by Class). */
class VolcanoListTest {

    @Test
    void eachCrdsListDeserializesToTypedItems() {
        new JSON(); // installs client-java's Gson
        VolcanoList.PodGroups podGroups = JSON.deserialize("""
                {"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroupList","metadata":{"resourceVersion":"7"},
                 "items":[{"metadata":{"name":"train","namespace":"team-a"},"spec":{"minMember":4}}]}""", VolcanoList.PodGroups.class);
        VolcanoList.Queues queues = JSON.deserialize("""
                {"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"QueueList","metadata":{"resourceVersion":"8"},
                 "items":[{"metadata":{"name":"default"},"spec":{"weight":1}},{"metadata":{"name":"research"}}]}""", VolcanoList.Queues.class);

        assertThat(podGroups.getItems()).singleElement().isInstanceOf(VolcanoPodGroup.class)
                .extracting(RawCustomObject::displayName).isEqualTo("team-a/train");
        assertThat(podGroups.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(queues.getItems()).hasSize(2).allSatisfy(q -> assertThat(q).isInstanceOf(VolcanoQueue.class));
        assertThat(queues.getItems().get(1).displayName()).isEqualTo("research");
    }

    @Test
    void anEmptyListSaysWhichKindItHolds() {
        assertThat(new VolcanoList.PodGroups().getKind()).isEqualTo("PodGroupList");
        assertThat(new VolcanoList.Queues().getKind()).isEqualTo("QueueList");
        assertThat(new VolcanoList.Queues().getItems()).isEmpty();
        assertThat(new VolcanoList.Queues().getApiVersion()).isEqualTo(VolcanoCrds.API_VERSION);
    }
}
