package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.kubernetes.client.openapi.JSON;
import org.junit.jupiter.api.Test;

/** The one generic list type, deserialized the way client-java's GenericKubernetesApi does it (Gson, by Class). */
class RawCustomObjectListTest {

    @Test
    void eachCrdsListDeserializesToTypedItems() {
        new JSON(); // installs client-java's Gson
        VolcanoCrds.PodGroupList podGroups = JSON.deserialize("""
                {"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"PodGroupList","metadata":{"resourceVersion":"7"},
                 "items":[{"metadata":{"name":"train","namespace":"team-a"},"spec":{"minMember":4}}]}""", VolcanoCrds.PodGroupList.class);
        VolcanoCrds.QueueList queues = JSON.deserialize("""
                {"apiVersion":"scheduling.volcano.sh/v1beta1","kind":"QueueList","metadata":{"resourceVersion":"8"},
                 "items":[{"metadata":{"name":"default"},"spec":{"weight":1}},{"metadata":{"name":"research"}}]}""", VolcanoCrds.QueueList.class);

        assertThat(podGroups.getItems()).singleElement().isInstanceOf(VolcanoPodGroup.class)
                .extracting(RawCustomObject::displayName).isEqualTo("team-a/train");
        assertThat(podGroups.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(queues.getItems()).hasSize(2).allSatisfy(q -> assertThat(q).isInstanceOf(VolcanoQueue.class));
        assertThat(queues.getItems().get(1).displayName()).isEqualTo("research");
    }

    @Test
    void anEmptyListSaysWhichKindItHolds() {
        assertThat(new VolcanoCrds.PodGroupList().getKind()).isEqualTo("PodGroupList");
        assertThat(new VolcanoCrds.QueueList().getKind()).isEqualTo("QueueList");
        assertThat(new VolcanoCrds.QueueList().getItems()).isEmpty();
        assertThat(new VolcanoCrds.QueueList().getApiVersion()).isEqualTo(VolcanoCrds.API_VERSION);
    }

    @Test
    void itemsTakeTheListsApiVersionWhenTheyLackOne() {
        new JSON(); // installs client-java's Gson
        KubeDisruptionBudget.Items budgets = JSON.deserialize("""
                {"apiVersion":"policy/v1","kind":"PodDisruptionBudgetList","metadata":{},
                 "items":[{"metadata":{"name":"a","namespace":"n"}},{"apiVersion":"policy/v1beta1","metadata":{"name":"b","namespace":"n"}}]}""",
                KubeDisruptionBudget.Items.class);

        assertThat(budgets.getItems()).extracting(RawCustomObject::getApiVersion).containsExactly("policy/v1", "policy/v1beta1");
        assertThat(new KubeDisruptionBudget.Items().getKind()).isEqualTo("PodDisruptionBudgetList");
    }
}
