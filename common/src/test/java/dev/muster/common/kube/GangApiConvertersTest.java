package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.podGroup;
import static dev.muster.common.kube.KubeObjects.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Kubernetes' and scheduler-plugins' PodGroups, and pods joining them, as the core sees them. */
class GangApiConvertersTest {
    private static final GangKey KEY = new GangKey("ns", "pg");

    @Test
    void kubernetesGangPolicyWithTopologyAndQueueLabel() {
        KubePodGroup pg = podGroup(new KubePodGroup(), "ns", "pg", """
                {"schedulingPolicy": {"gang": {"minCount": 4}},
                 "schedulingConstraints": {"topology": [{"key": "topology.kubernetes.io/zone"}]}}""");
        pg.getMetadata().putLabelsItem(KubernetesPodGroupConverter.QUEUE_KEY, "research");
        PodGroupSpec spec = KubernetesPodGroupConverter.toCore(pg);
        assertThat(spec).isEqualTo(new PodGroupSpec(KEY, 4, Map.of(), Resources.ZERO, "research", "", null, GangApi.KUBERNETES,
                TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "topology.kubernetes.io/zone")));
    }

    @Test
    void kubernetesBasicPolicyIsOneMemberAtATimeInTheDefaultQueue() {
        PodGroupSpec spec = KubernetesPodGroupConverter.toCore(podGroup(new KubePodGroup(), "ns", "pg", "{\"schedulingPolicy\": {\"basic\": {}}}"));
        assertThat(spec.minMember()).isEqualTo(1);
        assertThat(spec.queue()).isEqualTo("default");
        assertThat(spec.api()).isEqualTo(GangApi.KUBERNETES);
        assertThat(spec.topology()).isNull();
    }

    @Test
    void kubernetesQueueFromAnnotationWhenNoLabel() {
        KubePodGroup pg = podGroup(new KubePodGroup(), "ns", "pg", "{\"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}}");
        pg.getMetadata().putAnnotationsItem(KubernetesPodGroupConverter.QUEUE_KEY, "batch");
        pg.getMetadata().putAnnotationsItem(GangMembership.DEADLINE_ANNOTATION, "45s");
        PodGroupSpec spec = KubernetesPodGroupConverter.toCore(pg);
        assertThat(spec.queue()).isEqualTo("batch");
        assertThat(spec.deadline()).isEqualTo(Duration.ofSeconds(45));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "no policy                 | {}                                                              | exactly one of basic or gang",
            "both policies             | {\"schedulingPolicy\": {\"basic\": {}, \"gang\": {\"minCount\": 2}}} | exactly one of basic or gang",
            "minCount zero             | {\"schedulingPolicy\": {\"gang\": {\"minCount\": 0}}}           | minCount must be a positive number, got 0",
            "minCount text             | {\"schedulingPolicy\": {\"gang\": {\"minCount\": \"two\"}}}     | minCount: expected a whole number",
            "topology key missing      | {\"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}, \"schedulingConstraints\": {\"topology\": [{}]}} | topology[0]: key is required",
            "two topology constraints  | {\"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}, \"schedulingConstraints\": {\"topology\": [{\"key\": \"a\"}, {\"key\": \"b\"}]}} | at most one constraint, got 2",
            "dev-tree key missing      | {\"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}, \"schedulingConstraints\": {\"topologyConstraints\": [{}]}} | topologyKey is required",
            "ref without template name | {\"schedulingPolicy\": {\"basic\": {}}, \"podGroupTemplateRef\": {\"workload\": {\"workloadName\": \"w\"}}} | workloadName and podGroupTemplateName are required"})
    void badKubernetesPodGroupsNameTheField(String name, String spec, String message) {
        assertThatThrownBy(() -> KubernetesPodGroupConverter.toCore(podGroup(new KubePodGroup(), "ns", "pg", spec)))
                .isInstanceOf(ConversionException.class)
                .hasMessageContaining("podgroup ns/pg (scheduling.k8s.io)")
                .hasMessageContaining(message);
    }

    @Test
    void schedulerPluginsEveryField() {
        CoschedulingPodGroup pg = podGroup(new CoschedulingPodGroup(), "ns", "pg",
                "{\"minMember\": 3, \"minResources\": {\"cpu\": \"6\", \"memory\": \"12Gi\"}, \"scheduleTimeoutSeconds\": 120}");
        pg.getMetadata().putLabelsItem(KubernetesPodGroupConverter.QUEUE_KEY, "research");
        assertThat(CoschedulingPodGroupConverter.toCore(pg)).isEqualTo(new PodGroupSpec(KEY, 3, Map.of(), res("cpu=6,memory=12Gi"),
                "research", "", Duration.ofSeconds(120), GangApi.SCHEDULER_PLUGINS, null));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "negative minMember      | {\"minMember\": -1}                  | minMember must not be negative",
            "zero timeout            | {\"scheduleTimeoutSeconds\": 0}      | scheduleTimeoutSeconds must be positive",
            "bad minResources        | {\"minResources\": {\"cpu\": \"lots\"}} | minResources"})
    void badSchedulerPluginsPodGroupsNameTheField(String name, String spec, String message) {
        assertThatThrownBy(() -> CoschedulingPodGroupConverter.toCore(podGroup(new CoschedulingPodGroup(), "ns", "pg", spec)))
                .isInstanceOf(ConversionException.class)
                .hasMessageContaining("podgroup ns/pg (scheduling.x-k8s.io)")
                .hasMessageContaining(message);
    }

    @Test
    void podsJoinByLabelOrSchedulingGroupAndTheLabelWinsOverAControllersSchedulingGroup() {
        Pod byLabel = PodConverter.toCore(KubeObjects.pod("ns", "a").label(GangMembership.POD_GROUP_LABEL, "pg").build());
        Pod byField = PodConverter.toCore(KubeObjects.pod("ns", "b").schedulingGroup("pg").build());
        Pod both = PodConverter.toCore(KubeObjects.pod("ns", "c").schedulingGroup("other").label(GangMembership.POD_GROUP_LABEL, "pg").build());
        assertThat(byLabel.gang()).isEqualTo(KEY);
        assertThat(byField.gang()).isEqualTo(KEY);
        assertThat(both.gang()).isEqualTo(KEY);
        assertThat(both.membershipConflict()).isEmpty();
    }
}
