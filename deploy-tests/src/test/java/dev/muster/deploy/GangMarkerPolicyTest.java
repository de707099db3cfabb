package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangMembership;
import dev.muster.core.resources.ResourceNames;
import dev.muster.deploy.Chart.Install;
import dev.muster.deploy.Chart.Rendered;
import dev.muster.server.ServerDefaults;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * extender-config/gang-marker-policy.yaml marks exactly the pods kube-scheduler must bind through Muster, with the
 * resource the bind extender manages, and the chart renders the same policy.
 */
class GangMarkerPolicyTest {

    @Test
    void theFileHoldsAPolicyAndTheBindingThatAppliesIt() {
        List<Manifest> docs = GangMarkerPolicy.load();
        assertThat(docs).extracting(Manifest::kind).containsExactly(GangMarkerPolicy.POLICY, GangMarkerPolicy.BINDING);
        assertThat(docs).allSatisfy(d -> assertThat(Tree.string(d.body(), "apiVersion")).isEqualTo(GangMarkerPolicy.API_VERSION));
        Manifest policy = GangMarkerPolicy.only(docs, GangMarkerPolicy.POLICY);
        Manifest binding = GangMarkerPolicy.only(docs, GangMarkerPolicy.BINDING);
        assertThat(binding.spec()).containsEntry("policyName", policy.name())
                .as("no params, no narrower match: the binding applies the policy cluster-wide")
                .doesNotContainKeys("paramRef", "matchResources");
    }

    @Test
    void thePolicyMarksGangMembersOfMustersProfileWhenTheyAreCreated() {
        Manifest policy = GangMarkerPolicy.only(GangMarkerPolicy.load(), GangMarkerPolicy.POLICY);
        // a member the policy could not mark must not be created: Muster's filter would refuse it for good
        assertThat(policy.spec()).containsEntry("failurePolicy", "Fail");
        assertThat(Tree.maps(policy.spec(), "matchConstraints", "resourceRules")).containsExactly(Map.of(
                "apiGroups", List.of(""), "apiVersions", List.of("v1"), "operations", List.of("CREATE"), "resources", List.of("pods")));
        assertThat(GangMarkerPolicy.condition(policy, GangMarkerPolicy.SCHEDULER_CONDITION))
                .isEqualTo(GangMarkerPolicy.schedulerCondition(ServerDefaults.SCHEDULER_NAME));
        assertThat(GangMarkerPolicy.condition(policy, GangMarkerPolicy.GANG_CONDITION)).as("every way Muster reads a gang")
                .contains("'" + GangMembership.GROUP_NAME + "' in object.metadata.annotations",
                        "'" + GangMembership.VOLCANO_GROUP_NAME + "' in object.metadata.annotations",
                        "'" + GangMembership.POD_GROUP_LABEL + "' in object.metadata.labels",
                        "has(object.spec.schedulingGroup)");
        assertThat(Tree.maps(policy.spec(), "matchConditions")).as("nothing else narrows the match").hasSize(2);
    }

    @Test
    void theMarkIsTheResourceTheBindExtenderManagesInRequestsAndLimits() {
        Manifest policy = GangMarkerPolicy.only(GangMarkerPolicy.load(), GangMarkerPolicy.POLICY);
        assertThat(GangMarkerPolicy.applyConfigurations(policy)).singleElement().satisfies(expression -> assertThat(expression)
                .contains("requests: {\"" + ResourceNames.GANG_MARKER + "\": \"0\"}")
                .contains("limits: {\"" + ResourceNames.GANG_MARKER + "\": \"0\"}")
                .as("the first container only").contains("name: object.spec.containers[0].name"));
        for (String file : List.of("scheduler-config.yaml", "scheduler-config-insecure.yaml")) {
            Map<String, Object> binder = SchedulerConfigs.bindExtender(SchedulerConfigs.load(RepoLayout.find().extenderConfig().resolve(file)));
            assertThat(Tree.maps(binder, "managedResources")).as(file)
                    .containsExactly(Map.of("name", ResourceNames.GANG_MARKER, "ignoredByScheduler", true));
        }
    }

    @Test
    void chartRendersThePolicyFileForTheDefaultInstall() {
        Rendered chart = Chart.render(Install.defaults());
        List<Manifest> file = GangMarkerPolicy.load();
        for (String kind : List.of(GangMarkerPolicy.POLICY, GangMarkerPolicy.BINDING)) {
            Manifest rendered = GangMarkerPolicy.only(chart.manifests(), kind);
            Manifest expected = GangMarkerPolicy.only(file, kind);
            assertThat(GangMarkerPolicy.withoutNames(rendered, null)).as(kind).isEqualTo(GangMarkerPolicy.withoutNames(expected, null));
            assertThat(rendered.name()).as("%s name for release %s", kind, Chart.DEFAULT_RELEASE).isEqualTo(expected.name());
        }
        assertPolicyAndBindingBelongToTheRelease(chart, "muster");
    }

    @Test
    void anotherReleaseAndSchedulerNameChangeOnlyNamesLabelsAndTheSchedulerCondition() {
        Rendered chart = Chart.render(Install.with("scheduler.name", "gang").in("prod", "batch"));
        Manifest policy = GangMarkerPolicy.only(chart.manifests(), GangMarkerPolicy.POLICY);
        assertThat(GangMarkerPolicy.condition(policy, GangMarkerPolicy.SCHEDULER_CONDITION))
                .isEqualTo(GangMarkerPolicy.schedulerCondition("gang"));
        List<Manifest> file = GangMarkerPolicy.load();
        for (String kind : List.of(GangMarkerPolicy.POLICY, GangMarkerPolicy.BINDING)) {
            assertThat(GangMarkerPolicy.withoutNames(GangMarkerPolicy.only(chart.manifests(), kind), ServerDefaults.SCHEDULER_NAME))
                    .as(kind).isEqualTo(GangMarkerPolicy.withoutNames(GangMarkerPolicy.only(file, kind), null));
        }
        assertPolicyAndBindingBelongToTheRelease(chart, "prod-muster");
    }

    @Test
    void gangMarkerOffRendersNoPolicy() {
        Rendered chart = Chart.render(Install.with("extender.gangMarker", false));
        assertThat(chart.ofKind(GangMarkerPolicy.POLICY)).isEmpty();
        assertThat(chart.ofKind(GangMarkerPolicy.BINDING)).isEmpty();
    }

    private static void assertPolicyAndBindingBelongToTheRelease(Rendered chart, String fullname) {
        Manifest policy = GangMarkerPolicy.only(chart.manifests(), GangMarkerPolicy.POLICY);
        Manifest binding = GangMarkerPolicy.only(chart.manifests(), GangMarkerPolicy.BINDING);
        assertThat(policy.name()).isEqualTo(fullname + "-gang-marker");
        assertThat(binding.spec()).containsEntry("policyName", policy.name());
        for (Manifest m : List.of(policy, binding)) {
            assertThat(Tree.map(m.body(), "metadata")).as("%s is cluster-scoped", m.id()).doesNotContainKey("namespace");
            assertThat(Tree.map(m.body(), "metadata", "labels")).as(m.id())
                    .containsEntry("app.kubernetes.io/instance", chart.install().release())
                    .containsEntry("app.kubernetes.io/managed-by", "Helm")
                    .containsEntry("app.kubernetes.io/part-of", "muster")
                    .containsKeys("helm.sh/chart", "app.kubernetes.io/name", "app.kubernetes.io/component");
        }
    }
}
