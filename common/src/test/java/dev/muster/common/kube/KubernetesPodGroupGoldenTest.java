package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.golden;
import static dev.muster.common.kube.KubeObjects.kubePodGroup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.DisruptionMode;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PreemptionPolicy;
import dev.muster.core.model.PreemptionTerms;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Kubernetes PodGroups and Workloads as the API server serves them (golden files written from the Go types,
 * {@code src/test/resources/kubernetes-podgroups}), read the way the informers read them, into the one gang model.
 */
class KubernetesPodGroupGoldenTest {
    private static final TopologyRequest ZONE = TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "topology.kubernetes.io/zone");

    /** The Workloads of {@code files}, watched. */
    private static WorkloadTemplates workloads(String... files) {
        WorkloadTemplates templates = new WorkloadTemplates();
        templates.watching();
        for (String f : files) {
            templates.workloadUpserted(golden(f, KubeWorkload.class), pg -> { });
        }
        return templates;
    }

    private static PodGroupSpec convert(RawCustomObject pg, WorkloadTemplates templates) {
        List<PodGroupSpec> out = new ArrayList<>();
        templates.podGroupUpserted(pg, out::add);
        return out.getFirst();
    }

    @Test
    void v1beta1EveryFieldReachesTheGangModel() {
        PodGroupSpec spec = convert(golden("v1beta1-podgroup.json", KubePodGroup.class), workloads("v1beta1-workload.json"));
        assertThat(spec).isEqualTo(new PodGroupSpec(new GangKey("ml", "train-0"), 8, Map.of(), Resources.ZERO, "research",
                "batch-high", Duration.ofSeconds(90), GangApi.KUBERNETES, ZONE, "",
                new PreemptionTerms(100000, PreemptionPolicy.NEVER, DisruptionMode.ALL)));
    }

    @Test
    void v1beta1WorkloadRefIsResolvedAndTheTemplateFillsInWhatThePodGroupLeavesUnset() {
        RawCustomObjectList<KubePodGroup> list = golden("v1beta1-podgroup-list.json", GangApiLists.KubePodGroups.class);
        KubePodGroup big = list.getItems().getFirst();
        assertThat(big.getApiVersion()).as("the list's version, stamped on its item").isEqualTo("scheduling.k8s.io/v1beta1");
        PodGroupSpec spec = convert(big, workloads("v1beta1-workload.json"));
        // its own minCount, disruption mode and priority win; the template's class name, topology and policy fill in
        assertThat(spec.minMember()).isEqualTo(16);
        assertThat(spec.preemption()).isEqualTo(new PreemptionTerms(0, PreemptionPolicy.NEVER, DisruptionMode.SINGLE));
        assertThat(spec.priorityClassName()).isEqualTo("batch-high");
        assertThat(spec.topology()).isEqualTo(ZONE);
        assertThat(spec.isUnresolved()).isFalse();
    }

    @Test
    void v1beta1WorkloadRefToAMissingWorkloadIsUnresolvedNamingTheField() {
        PodGroupSpec spec = convert(golden("v1beta1-podgroup.json", KubePodGroup.class), workloads());
        assertThat(spec.unresolved()).isEqualTo("spec.workloadRef: Workload ml/train does not exist");
    }

    @Test
    void aChildOfACompositePodGroupIsRefusedNamingTheFieldNeverScheduledAsAGangOfItsOwn() {
        PodGroupSpec spec = convert(golden("v1beta1-podgroup-child.json", KubePodGroup.class), workloads("v1beta1-workload.json"));
        assertThat(spec.isUnresolved()).isTrue();
        assertThat(spec.unresolved()).startsWith("spec.parentCompositePodGroupName: the PodGroup belongs to CompositePodGroup \"serving\"")
                .contains("Muster does not schedule groups of groups");
    }

    @Test
    void v1alpha2AsServedBy136() {
        PodGroupSpec spec = KubernetesPodGroupConverter.toCore(golden("v1alpha2-podgroup.json", KubePodGroup.class),
                (ns, w, t) -> new KubernetesPodGroupConverter.Template.Found(new com.google.gson.JsonObject()));
        assertThat(spec.minMember()).isEqualTo(4);
        assertThat(spec.priorityClassName()).isEqualTo("batch-high");
        assertThat(spec.preemption()).isEqualTo(new PreemptionTerms(1000, PreemptionPolicy.PREEMPT_LOWER_PRIORITY, DisruptionMode.ALL));
        assertThat(KubernetesPodGroupConverter.workloadNameOf(golden("v1alpha2-podgroup.json", KubePodGroup.class))).isEqualTo("train");
    }

    @Test
    void eachVersionReadsOnlyItsOwnTemplateReference() {
        String v1alpha2Ref = "{\"schedulingPolicy\": {\"basic\": {}}, \"podGroupTemplateRef\": {\"workload\": {\"workloadName\": \"w\", \"podGroupTemplateName\": \"t\"}}}";
        String v1beta1Ref = "{\"schedulingPolicy\": {\"basic\": {}}, \"workloadRef\": {\"workloadName\": \"w\", \"templateName\": \"t\"}}";
        assertThat(KubernetesPodGroupConverter.workloadNameOf(kubePodGroup(KubeObjects.K8S_V1ALPHA2, "ns", "pg", v1alpha2Ref))).isEqualTo("w");
        assertThat(KubernetesPodGroupConverter.workloadNameOf(kubePodGroup(KubeObjects.K8S_V1BETA1, "ns", "pg", v1beta1Ref))).isEqualTo("w");
        assertThat(KubernetesPodGroupConverter.workloadNameOf(kubePodGroup(KubeObjects.K8S_V1BETA1, "ns", "pg", v1alpha2Ref))).isNull();
    }

    @Test
    void aLiveMinCountChangeIsAnotherSpecAtOnce() {
        WorkloadTemplates templates = workloads();
        String before = "{\"schedulingPolicy\": {\"gang\": {\"minCount\": 4}}}";
        String after = "{\"schedulingPolicy\": {\"gang\": {\"minCount\": 3}}}";
        assertThat(convert(kubePodGroup(KubeObjects.K8S_V1BETA1, "ns", "grow", before), templates).minMember()).isEqualTo(4);
        assertThat(convert(kubePodGroup(KubeObjects.K8S_V1BETA1, "ns", "grow", after), templates).minMember()).isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "both disruption modes      | {\"schedulingPolicy\": {\"basic\": {}}, \"disruptionMode\": {\"single\": {}, \"all\": {}}}  | disruptionMode: exactly one of single or all",
            "v1alpha2's disruption text | {\"schedulingPolicy\": {\"basic\": {}}, \"disruptionMode\": \"PodGroup\"}                   | disruptionMode: expected an object",
            "unknown preemption policy  | {\"schedulingPolicy\": {\"basic\": {}}, \"preemptionPolicy\": \"Always\"}                   | preemptionPolicy must be \"PreemptLowerPriority\" or \"Never\", got \"Always\"",
            "workloadRef half filled    | {\"schedulingPolicy\": {\"basic\": {}}, \"workloadRef\": {\"workloadName\": \"w\"}}         | spec.workloadRef: workloadName and templateName are required",
            "five resource claims       | {\"schedulingPolicy\": {\"basic\": {}}, \"resourceClaims\": [{\"name\":\"a\",\"resourceClaimName\":\"a\"},{\"name\":\"b\",\"resourceClaimName\":\"b\"},{\"name\":\"c\",\"resourceClaimName\":\"c\"},{\"name\":\"d\",\"resourceClaimName\":\"d\"},{\"name\":\"e\",\"resourceClaimName\":\"e\"}]} | resourceClaims: at most 4 claims, got 5",
            "claim naming both sources  | {\"schedulingPolicy\": {\"basic\": {}}, \"resourceClaims\": [{\"name\":\"a\",\"resourceClaimName\":\"a\",\"resourceClaimTemplateName\":\"t\"}]} | resourceClaims[0] (a): exactly one of resourceClaimName or resourceClaimTemplateName"})
    void badV1beta1PodGroupsNameTheField(String name, String spec, String message) {
        assertThatThrownBy(() -> KubernetesPodGroupConverter.toCore(kubePodGroup(KubeObjects.K8S_V1BETA1, "ns", "pg", spec)))
                .isInstanceOf(ConversionException.class)
                .hasMessageContaining("podgroup ns/pg (scheduling.k8s.io)")
                .hasMessageContaining(message);
    }

    @Test
    void anApiVersionMusterDoesNotReadIsNamed() {
        assertThatThrownBy(() -> KubernetesPodGroupConverter.toCore(kubePodGroup("scheduling.k8s.io/v1alpha1", "ns", "pg", "{}")))
                .isInstanceOf(ConversionException.class)
                .hasMessageContaining("apiVersion \"scheduling.k8s.io/v1alpha1\": Muster reads scheduling.k8s.io/v1beta1 and scheduling.k8s.io/v1alpha2");
    }
}
