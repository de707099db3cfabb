package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.podGroup;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.TopologyRequest;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A Kubernetes PodGroup's {@code spec.podGroupTemplateRef} resolved against the Workloads seen, and again as they change. */
class WorkloadTemplatesTest {
    private static final String WORKLOAD = """
            {"podGroupTemplates": [
              {"name": "workers", "schedulingPolicy": {"gang": {"minCount": 3}}, "priorityClassName": "high",
               "schedulingConstraints": {"topology": [{"key": "rack"}]}},
              {"name": "driver", "schedulingPolicy": {"basic": {}}}]}""";
    private static final String REF = "\"podGroupTemplateRef\": {\"workload\": {\"workloadName\": \"job\", \"podGroupTemplateName\": \"workers\"}}";

    private final WorkloadTemplates templates = new WorkloadTemplates();
    private final List<PodGroupSpec> specs = new ArrayList<>();

    @BeforeEach
    void watching() {
        templates.watching();
    }

    private static KubeWorkload workload(String name, String specJson) {
        KubeWorkload w = new KubeWorkload();
        w.setMetadata(new V1ObjectMeta().namespace("ns").name(name));
        w.setSpec(JsonParser.parseString(specJson).getAsJsonObject());
        return w;
    }

    private PodGroupSpec convert(String specJson) {
        templates.podGroupUpserted(podGroup(new KubePodGroup(), "ns", "pg", specJson), specs::add);
        return specs.getLast();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            // the PodGroup's own fields win; the template fills in what it leaves unset
            "own policy, template constraints and priority | \"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}                                        | 2 | rack | high",
            "own constraints win                          | \"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}, \"schedulingConstraints\": {\"topology\": [{\"key\": \"zone\"}]} | 2 | zone | high",
            "own priority class wins                      | \"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}, \"priorityClassName\": \"low\" | 2 | rack | low",
            "no own policy: the template's                | \"schedulingPolicy\": {}                                                                  | 3 | rack | high"})
    void thePodGroupsOwnFieldsWinAndTheTemplateFillsIn(String name, String own, int minMember, String topologyKey, String priorityClass) {
        templates.workloadUpserted(workload("job", WORKLOAD), pg -> { });
        PodGroupSpec spec = convert("{" + REF + ", " + own + "}");
        assertThat(spec.isUnresolved()).isFalse();
        assertThat(spec.minMember()).isEqualTo(minMember);
        assertThat(spec.topology()).isEqualTo(TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, topologyKey));
        assertThat(spec.priorityClassName()).isEqualTo(priorityClass);
    }

    @Test
    void aMissingWorkloadLeavesTheGangUnresolvedUntilItArrivesThenItIsResolvedAgain() {
        PodGroupSpec before = convert("{" + REF + ", \"schedulingPolicy\": {\"gang\": {\"minCount\": 2}}}");
        assertThat(before.unresolved()).isEqualTo("spec.podGroupTemplateRef: Workload ns/job does not exist");
        assertThat(templates.referringPodGroups()).isEqualTo(1);

        templates.workloadUpserted(workload("other", WORKLOAD), pg -> templates.podGroupUpserted(pg, specs::add));
        assertThat(specs).hasSize(1); // a Workload nobody names re-resolves nothing

        templates.workloadUpserted(workload("job", WORKLOAD), pg -> templates.podGroupUpserted(pg, specs::add));
        assertThat(specs).hasSize(2);
        assertThat(specs.getLast().isUnresolved()).isFalse();
        assertThat(specs.getLast().topology()).isEqualTo(TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, "rack"));

        templates.workloadDeleted(workload("job", WORKLOAD), pg -> templates.podGroupUpserted(pg, specs::add));
        assertThat(specs.getLast().unresolved()).isEqualTo("spec.podGroupTemplateRef: Workload ns/job does not exist");
    }

    @Test
    void aMissingTemplateNamesTheOnesTheWorkloadHas() {
        templates.workloadUpserted(workload("job", WORKLOAD), pg -> { });
        PodGroupSpec spec = convert("{\"podGroupTemplateRef\": {\"workload\": {\"workloadName\": \"job\", \"podGroupTemplateName\": \"ps\"}},"
                + " \"schedulingPolicy\": {\"basic\": {}}}");
        assertThat(spec.unresolved()).isEqualTo("spec.podGroupTemplateRef: Workload ns/job has no podGroupTemplate \"ps\" (it has workers, driver)");
    }

    @Test
    void withoutWorkloadsWatchedAReferenceIsUnresolvedAndSaysSo() {
        WorkloadTemplates notWatched = new WorkloadTemplates();
        List<PodGroupSpec> out = new ArrayList<>();
        notWatched.podGroupUpserted(podGroup(new KubePodGroup(), "ns", "pg", "{" + REF + ", \"schedulingPolicy\": {\"basic\": {}}}"), out::add);
        assertThat(out.getFirst().unresolved()).contains("scheduling.k8s.io workloads are not watched");
    }

    @Test
    void aDeletedOrRetargetedPodGroupIsNoLongerResolvedForItsOldWorkload() {
        KubePodGroup pg = podGroup(new KubePodGroup(), "ns", "pg", "{" + REF + ", \"schedulingPolicy\": {\"basic\": {}}}");
        templates.podGroupUpserted(pg, specs::add);
        templates.podGroupDeleted(pg, () -> { });
        assertThat(templates.referringPodGroups()).isZero();
        List<Object> reresolved = new ArrayList<>();
        templates.workloadUpserted(workload("job", WORKLOAD), reresolved::add);
        assertThat(reresolved).isEmpty();
    }

    @Test
    void aPodGroupWithoutPolicyAndWithoutTemplatePolicyIsRefusedByName() {
        templates.workloadUpserted(workload("job", "{\"podGroupTemplates\": [{\"name\": \"workers\"}]}"), pg -> { });
        assertThatThrownBy(() -> convert("{" + REF + "}")).isInstanceOf(ConversionException.class)
                .hasMessageContaining("podgroup ns/pg (scheduling.k8s.io) spec.schedulingPolicy: exactly one of basic or gang must be set (in the PodGroup or its Workload template)");
    }

    @Test
    void aMalformedWorkloadIsRefusedByNameAndKeepsWhatWasKnown() {
        templates.workloadUpserted(workload("job", WORKLOAD), pg -> { });
        assertThatThrownBy(() -> templates.workloadUpserted(workload("job", "{\"podGroupTemplates\": [{\"schedulingPolicy\": {}}]}"), pg -> { }))
                .isInstanceOf(ConversionException.class).hasMessage("workload ns/job spec.podGroupTemplates[0]: name is required");
        assertThat(convert("{" + REF + ", \"schedulingPolicy\": {}}").minMember()).isEqualTo(3);
    }
}
