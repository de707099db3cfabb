package dev.muster.server.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import dev.muster.core.model.GangKey;
import dev.muster.core.provision.Provisioning;
import dev.muster.core.provision.RequestStatus;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSchedulingGate;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A gang's PodTemplates and ProvisioningRequest as made from its pods, and a request's status as read. */
class RequestObjectsTest {
    private static final GangKey GANG = new GangKey("ml", "train");

    private static V1Pod pod(String name, String cpu, int index) {
        Map<String, Quantity> req = new HashMap<>(Map.of("cpu", new Quantity(cpu), "muster.dev/gang", new Quantity("1")));
        return new V1Pod().metadata(new V1ObjectMeta().name(name).namespace("ml").labels(Map.of("app", "train", "index", String.valueOf(index))))
                .spec(new V1PodSpec().schedulerName("muster").nodeName(index == 0 ? "n0" : null).hostname(name)
                        .schedulingGates(new ArrayList<>(List.of(new V1PodSchedulingGate().name("muster.dev/queue-admission"),
                                new V1PodSchedulingGate().name("example.com/other"))))
                        .volumes(new ArrayList<>(List.of(new io.kubernetes.client.openapi.models.V1Volume().name("kube-api-access-" + name),
                                new io.kubernetes.client.openapi.models.V1Volume().name("data"))))
                        .containers(List.of(new V1Container().name("c").image("img").resources(new V1ResourceRequirements().requests(req))
                                .volumeMounts(new ArrayList<>(List.of(new io.kubernetes.client.openapi.models.V1VolumeMount().name("kube-api-access-" + name)
                                        .mountPath("/var/run/secrets/kubernetes.io/serviceaccount"), new io.kubernetes.client.openapi.models.V1VolumeMount()
                                        .name("data").mountPath("/data")))))));
    }

    @Test
    void onePodTemplatePerShapeWithCountsAndNothingAnAutoscalerCouldNotSimulate() {
        List<V1Pod> pods = List.of(pod("w-0", "500m", 0), pod("w-1", "500m", 1), pod("w-2", "500m", 2), pod("ps-0", "2", 3));
        List<RequestObjects.Shape> shapes = RequestObjects.shapes("train-1", GANG, pods);
        assertThat(shapes).extracting(RequestObjects.Shape::count).containsExactly(3, 1);
        var t = shapes.getFirst().template();
        assertThat(t.getMetadata().getName()).isEqualTo("train-1-0");
        assertThat(t.getMetadata().getNamespace()).isEqualTo("ml");
        assertThat(t.getMetadata().getLabels()).containsEntry("app.kubernetes.io/managed-by", "muster").containsEntry("muster.dev/provisioning-request", "train-1");
        assertThat(t.getTemplate().getMetadata().getLabels()).isEqualTo(Map.of("app", "train")); // only what every pod of the shape shares
        V1PodSpec spec = t.getTemplate().getSpec();
        assertThat(spec.getNodeName()).isNull();
        assertThat(spec.getHostname()).isNull();
        assertThat(spec.getSchedulingGates()).extracting(V1PodSchedulingGate::getName).containsExactly("example.com/other");
        assertThat(spec.getContainers().getFirst().getResources().getRequests()).containsOnlyKeys("cpu");
        assertThat(spec.getVolumes()).extracting(io.kubernetes.client.openapi.models.V1Volume::getName).containsExactly("data");
        assertThat(spec.getContainers().getFirst().getVolumeMounts()).extracting(io.kubernetes.client.openapi.models.V1VolumeMount::getName)
                .containsExactly("data");
        assertThat(pods.getFirst().getSpec().getNodeName()).isEqualTo("n0"); // the pods themselves are not changed
        assertThat(pods.getFirst().getSpec().getContainers().getFirst().getResources().getRequests()).containsKey("muster.dev/gang");

        ProvisioningRequestObject r = RequestObjects.request("train-1", GANG,
                new Provisioning.Settings(Provisioning.Settings.ATOMIC, Map.of("ValidUntilSeconds", "3600"), Provisioning.Settings.atomic().backoff()), shapes);
        assertThat(JsonParser.parseString(JSON.serialize(r))).isEqualTo(JsonParser.parseString("""
                {"apiVersion":"autoscaling.x-k8s.io/v1","kind":"ProvisioningRequest",
                 "metadata":{"name":"train-1","namespace":"ml","labels":{"app.kubernetes.io/managed-by":"muster"},
                             "annotations":{"muster.dev/podgroup":"train"},"finalizers":[],"ownerReferences":[]},
                 "spec":{"provisioningClassName":"best-effort-atomic-scale-up.autoscaling.x-k8s.io",
                         "parameters":{"ValidUntilSeconds":"3600"},
                         "podSets":[{"podTemplateRef":{"name":"train-1-0"},"count":3},{"podTemplateRef":{"name":"train-1-1"},"count":1}]}}"""));
        assertThat(RequestObjects.gangOf(r)).isEqualTo(GANG);
    }

    @Test
    void noPodsOrTooManyShapesAreRefusedSayingWhy() {
        assertThatThrownBy(() -> RequestObjects.shapes("train-1", GANG, List.of())).hasMessageContaining("no waiting pod");
        List<V1Pod> many = new ArrayList<>();
        for (int i = 0; i < 33; i++) {
            many.add(pod("p" + i, (100 + i) + "m", i));
        }
        assertThatThrownBy(() -> RequestObjects.shapes("train-1", GANG, many)).hasMessageContaining("33 distinct shapes").hasMessageContaining("at most 32");
    }

    @Test
    void theStatusReadsTheTrueConditionsAndTheOneThatDecides() {
        ProvisioningRequestObject o = new ProvisioningRequestObject();
        o.setStatus(JsonParser.parseString("""
                {"conditions":[{"type":"Accepted","status":"True","reason":"Accepted","message":"ok"},
                               {"type":"Provisioned","status":"False","reason":"CapacityIsNotFound"},
                               {"type":"Failed","status":"True","reason":"FailedToBookCapacity","message":"no room in zone a"}]}""").getAsJsonObject());
        assertThat(RequestObjects.status(o)).isEqualTo(new RequestStatus(true, false, true, false, false, "FailedToBookCapacity", "no room in zone a"));
        assertThat(RequestObjects.status(new ProvisioningRequestObject())).isEqualTo(RequestStatus.NEW);
    }

    @Test
    void longRequestNamesGetAShortLabelValue() {
        assertThat(RequestObjects.labelValue("a".repeat(63))).hasSize(63);
        String v = RequestObjects.labelValue("a".repeat(200) + "-1");
        assertThat(v).hasSizeLessThanOrEqualTo(63).isNotEqualTo(RequestObjects.labelValue("a".repeat(200) + "-2"));
    }

    @Test
    void badParametersAreRefusedNamingTheFlag() {
        assertThat(ProvisionFlags.parameters("ValidUntilSeconds=3600, example.com/zone=a")).containsEntry("ValidUntilSeconds", "3600")
                .containsEntry("example.com/zone", "a");
        assertThatThrownBy(() -> ProvisionFlags.parameters("novalue")).hasMessageStartingWith("--provisioning-parameters");
        assertThatThrownBy(() -> ProvisionFlags.parameters("a=1,a=2")).hasMessageContaining("a is given twice");
    }
}
