package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.Strictness;
import com.google.gson.stream.JsonReader;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodList;
import java.io.IOException;
import java.io.StringReader;
import java.time.OffsetDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlimJsonTest {
    private static V1Pod fullPod() {
        V1Pod full = pod("team-a", "w0").uid("u").resourceVersion("9").gang("train").annotation("volcano.sh/task-spec", "worker")
                .annotation("kubectl.kubernetes.io/last-applied-configuration", "{...huge...}")
                .sidecar("proxy", "cpu=100m").initContainer("init", "cpu=2").container("main", "cpu=1,memory=2Gi")
                .overhead("cpu=50m").podResources("memory=3Gi").node("n1").phase("Running").priority(7).schedulerName("muster").build();
        full.getSpec().getContainers().get(0).image("registry/x:1").addEnvItem(new V1EnvVar().name("A").value("b"));
        full.getStatus().addConditionsItem(new V1PodCondition().type("Ready").status("True"));
        full.getMetadata().addOwnerReferencesItem(new V1OwnerReference().apiVersion("batch/v1").kind("Job").name("train").uid("j1").controller(true));
        return full;
    }

    private static JsonReader reader(String json) {
        JsonReader in = new JsonReader(new StringReader(json));
        in.setStrictness(Strictness.LENIENT);
        return in;
    }

    @Test
    void aSlimPodConvertsExactlyLikeTheFullOneAndKeepsNothingElse() throws IOException {
        V1Pod full = fullPod();

        V1Pod slim = SlimPodJson.readPod(reader(JSON.serialize(full)));

        assertThat(PodConverter.toCore(slim)).isEqualTo(PodConverter.toCore(full));
        assertThat(slim.getMetadata().getAnnotations()).containsOnlyKeys("scheduling.k8s.io/group-name", "volcano.sh/task-spec");
        assertThat(slim.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getName()).isEqualTo("train");
            assertThat(o.getController()).isTrue();
        });
        assertThat(slim.getSpec().getContainers().get(0).getImage()).isNull();
        assertThat(slim.getSpec().getContainers().get(0).getEnv()).isNullOrEmpty();
        assertThat(slim.getStatus().getConditions()).isNullOrEmpty();
        assertThat(slim.getSpec().getSchedulerName()).isEqualTo("muster");
        assertThat(slim.getSpec().getPriority()).isEqualTo(7);
    }

    @Test
    void aBoundPodKeepsEveryLabelAndItsPreemptionTerms() throws IOException {
        V1Pod full = pod("team-a", "w0").uid("u").label("app", "x").label("team", "ml").node("n1").container("main", "cpu=1").build();
        full.getSpec().preemptionPolicy("Never").terminationGracePeriodSeconds(120L);
        V1Pod slim = SlimPodJson.readPod(reader(JSON.serialize(full)));
        assertThat(slim.getMetadata().getLabels()).containsOnlyKeys("app", "team");
        assertThat(PodConverter.toCore(slim)).isEqualTo(PodConverter.toCore(full));
        assertThat(PodConverter.toCore(slim).neverPreempts()).isTrue();
        assertThat(PodConverter.toCore(slim).graceSeconds()).isEqualTo(120);
    }

    @Test
    void aPendingPodKeepsItsNominatedNode() throws IOException {
        V1Pod full = pod("team-a", "vip").uid("u").container("main", "cpu=1").build();
        full.status(new io.kubernetes.client.openapi.models.V1PodStatus().phase("Pending").nominatedNodeName("n2")
                .addConditionsItem(new V1PodCondition().type("PodScheduled").status("False")));
        V1Pod slim = SlimPodJson.readPod(reader(JSON.serialize(full)));
        assertThat(PodConverter.toCore(slim)).isEqualTo(PodConverter.toCore(full));
        assertThat(PodConverter.toCore(slim).nominatedNodeName()).isEqualTo("n2");
        assertThat(slim.getStatus().getConditions()).isNullOrEmpty();
    }

    @Test
    void theGangLabelAndSchedulingGroupSurviveOtherLabelsDoNot() throws IOException {
        V1Pod full = pod("team-a", "w0").uid("u").label("app", "x").label("scheduling.x-k8s.io/pod-group", "pg")
                .schedulingGroup("other").container("main", "cpu=1").build();
        V1Pod slim = SlimPodJson.readPod(reader(JSON.serialize(full)));
        assertThat(PodConverter.toCore(slim)).isEqualTo(PodConverter.toCore(full));
        assertThat(slim.getSpec().getSchedulingGroup().getPodGroupName()).isEqualTo("other");
        assertThat(PodConverter.toCore(slim).gang().name()).isEqualTo("pg"); // the label wins over spec.schedulingGroup
        assertThat(slim.getMetadata().getLabels()).containsOnlyKeys("scheduling.x-k8s.io/pod-group");
    }

    @Test
    void aMalformedQuantityIsRefusedWhenThePodIsConvertedNamingIt() throws IOException {
        V1Pod slim = SlimPodJson.readPod(reader("{\"metadata\":{\"name\":\"p\",\"namespace\":\"a\",\"uid\":\"u\"},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}}"));
        assertThatThrownBy(() -> PodConverter.toCore(slim)).isInstanceOf(ConversionException.class).hasMessageContaining("cpu")
                .hasMessageContaining("lots");
    }

    @Test
    void keptQuantitiesAreTheTextTheApiServerWroteAndEqualTheParsedOnes() throws IOException {
        V1Pod slim = SlimPodJson.readPod(reader("{\"spec\":{\"overhead\":{\"cpu\":\"250m\",\"memory\":\"1Gi\"}}}"));
        io.kubernetes.client.custom.Quantity cpu = slim.getSpec().getOverhead().get("cpu");
        assertThat(cpu.toSuffixedString()).isEqualTo("250m");
        assertThat(cpu).isEqualTo(new io.kubernetes.client.custom.Quantity("250m"));
        assertThat(cpu.getNumber()).isEqualByComparingTo("0.25");
        assertThat(slim.getSpec().getOverhead().get("memory").getNumber()).isEqualByComparingTo("1073741824");
    }

    @Test
    void aNodeKeepsWhatTheLedgerReadsAndNotItsImages() throws IOException {
        io.kubernetes.client.openapi.models.V1Node full = new io.kubernetes.client.openapi.models.V1Node()
                .metadata(new io.kubernetes.client.openapi.models.V1ObjectMeta().name("n1").uid("u").resourceVersion("5")
                        .labels(java.util.Map.of("topology.kubernetes.io/zone", "z1")))
                .spec(new io.kubernetes.client.openapi.models.V1NodeSpec().unschedulable(true))
                .status(new io.kubernetes.client.openapi.models.V1NodeStatus()
                        .allocatable(java.util.Map.of("cpu", new io.kubernetes.client.custom.Quantity("31800m"),
                                "memory", new io.kubernetes.client.custom.Quantity("120Gi")))
                        .addImagesItem(new io.kubernetes.client.openapi.models.V1ContainerImage().names(List.of("registry/big:1")).sizeBytes(1L << 30)));
        io.kubernetes.client.openapi.models.V1NodeList list = new io.kubernetes.client.openapi.models.V1NodeList()
                .metadata(new V1ListMeta().resourceVersion("6")).items(List.of(full));

        io.kubernetes.client.openapi.models.V1NodeList slim = SlimNodeJson.readList(reader(JSON.serialize(list)));

        assertThat(slim.getMetadata().getResourceVersion()).isEqualTo("6");
        io.kubernetes.client.openapi.models.V1Node n = slim.getItems().getFirst();
        assertThat(n.getMetadata().getLabels()).containsEntry("topology.kubernetes.io/zone", "z1");
        assertThat(n.getSpec().getUnschedulable()).isTrue();
        assertThat(n.getStatus().getAllocatable().get("cpu").toSuffixedString()).isEqualTo("31800m");
        assertThat(n.getStatus().getImages()).isNullOrEmpty();
    }

    @Test
    void aNodeKeepsItsTaintsOfTheThreeKnownEffects() throws IOException {
        String json = "{'metadata':{'name':'n1'},'spec':{'taints':[{'key':'a','effect':'NoSchedule'},"
                + "{'key':'b','value':'x','effect':'PreferNoSchedule','timeAdded':null},{'key':'c','effect':'Other'}]}}";

        io.kubernetes.client.openapi.models.V1Node n = SlimNodeJson.readNode(reader(json.replace('\'', '"')));

        assertThat(n.getSpec().getTaints()).extracting(io.kubernetes.client.openapi.models.V1Taint::getKey).containsExactly("a", "b");
        assertThat(n.getSpec().getTaints().get(1).getValue()).isEqualTo("x");
    }

    @Test
    void aDeletionTimestampIsKept() throws IOException {
        V1Pod full = pod("a", "p").uid("u").container("main", "cpu=1").build();
        full.getMetadata().setDeletionTimestamp(OffsetDateTime.parse("2026-11-23T14:00:00Z"));
        V1Pod slim = SlimPodJson.readPod(reader(JSON.serialize(full)));
        assertThat(slim.getMetadata().getDeletionTimestamp()).isEqualTo(OffsetDateTime.parse("2026-11-23T14:00:00Z"));
    }

    @Test
    void aListKeepsItsResourceVersionAndItems() throws IOException {
        V1PodList list = new V1PodList().apiVersion("v1").kind("PodList").metadata(new V1ListMeta().resourceVersion("42"))
                .items(List.of(fullPod(), pod("b", "q").uid("u2").container("c", "cpu=2").build()));
        V1PodList slim = SlimPodJson.readList(reader(JSON.serialize(list)));
        assertThat(slim.getMetadata().getResourceVersion()).isEqualTo("42");
        assertThat(slim.getItems()).extracting(p -> p.getMetadata().getName()).containsExactly("w0", "q");
        assertThat(PodConverter.toCore(slim.getItems().get(1))).isEqualTo(PodConverter.toCore(list.getItems().get(1)));
    }

    @Test
    void aWatchStreamIsReadEventByEventIncludingBookmarksAndErrors() throws IOException {
        String stream = "{\"type\":\"ADDED\",\"object\":" + JSON.serialize(fullPod()) + "}\n"
                + "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"77\","
                + "\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}\n"
                + "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                + "\"message\":\"too old resource version: 1 (77)\",\"reason\":\"Expired\",\"code\":410}}\n";
        JsonReader in = reader(stream);

        SlimJson.Event<V1Pod> added = SlimJson.readEvent(in, SlimPodJson::readPod);
        SlimJson.Event<V1Pod> bookmark = SlimJson.readEvent(in, SlimPodJson::readPod);
        SlimJson.Event<V1Pod> error = SlimJson.readEvent(in, SlimPodJson::readPod);

        assertThat(added.type()).isEqualTo("ADDED");
        assertThat(added.object().getMetadata().getName()).isEqualTo("w0");
        assertThat(bookmark.object().getMetadata().getResourceVersion()).isEqualTo("77");
        assertThat(error.status().getCode()).isEqualTo(410);
        assertThat(error.status().getMessage()).contains("too old");
        assertThat(in.peek()).isEqualTo(com.google.gson.stream.JsonToken.END_DOCUMENT);
    }

    @Test
    void aKeptFieldOfTheWrongTypeIsAnErrorNamingTheField() {
        assertThatThrownBy(() -> SlimPodJson.readPod(reader("{\"metadata\":{\"name\":[\"x\"]}}")))
                .isInstanceOf(IOException.class).hasMessageContaining("metadata.name");
        assertThatThrownBy(() -> SlimPodJson.readPod(reader("{\"spec\":{\"containers\":[{\"resources\":{\"requests\":{\"cpu\":7}}}]}}")))
                .isInstanceOf(IOException.class).hasMessageContaining("spec.containers.resources.requests.cpu");
        assertThatThrownBy(() -> SlimJson.readEvent(reader("{\"object\":{}}"), SlimPodJson::readPod))
                .isInstanceOf(IOException.class).hasMessageContaining("without a type");
    }
}
