package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.gang.QueueGate;
import dev.muster.deploy.Chart.Install;
import dev.muster.deploy.Chart.Rendered;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * extender-config/queue-gate-policy.yaml gates gang members of Muster's profile at creation and lets only the extender
 * lift that gate; the chart renders the same four objects when extender.queueGate.enabled is true, and the extender's
 * flag follows the value.
 */
class QueueGatePolicyTest {
    private static final String VALIDATING = "ValidatingAdmissionPolicy";
    private static final String VALIDATING_BINDING = "ValidatingAdmissionPolicyBinding";
    private static final List<String> KINDS = List.of(GangMarkerPolicy.POLICY, GangMarkerPolicy.BINDING, VALIDATING, VALIDATING_BINDING);

    static List<Manifest> load() throws IOException {
        return Chart.parse(Files.readString(RepoLayout.find().extenderConfig().resolve("queue-gate-policy.yaml")));
    }

    private static Manifest named(List<Manifest> manifests, String kind, String name) {
        return manifests.stream().filter(m -> kind.equals(m.kind()) && name.equals(m.name())).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " " + name));
    }

    @Test
    void chartRendersThePolicyFileWhenTheGateIsOn() throws IOException {
        Rendered chart = Chart.render(Install.with("extender.queueGate.enabled", true));
        List<Manifest> file = load();
        assertThat(file).extracting(Manifest::kind).containsExactlyElementsOf(KINDS);
        for (Manifest expected : file) {
            Manifest rendered = named(chart.manifests(), expected.kind(), expected.name());
            assertThat(GangMarkerPolicy.withoutNames(rendered, null)).as(expected.id())
                    .isEqualTo(GangMarkerPolicy.withoutNames(expected, null));
            assertThat(Tree.map(rendered.body(), "metadata")).as("%s is cluster-scoped", rendered.id()).doesNotContainKey("namespace");
        }
        assertThat(named(chart.manifests(), VALIDATING_BINDING, "muster-queue-gate-lift").spec())
                .containsEntry("policyName", "muster-queue-gate-lift");
        assertThat(named(chart.manifests(), GangMarkerPolicy.BINDING, "muster-queue-gate").spec())
                .containsEntry("policyName", "muster-queue-gate");
    }

    @Test
    void theGateIsMustersAndOnlyTheExtendersServiceAccountMayLiftIt() throws IOException {
        List<Manifest> file = load();
        Manifest mutating = named(file, GangMarkerPolicy.POLICY, "muster-queue-gate");
        assertThat(mutating.spec()).containsEntry("failurePolicy", "Fail");
        assertThat(GangMarkerPolicy.applyConfigurations(mutating)).singleElement().asString()
                .contains("schedulingGates: [Object.spec.schedulingGates{name: \"" + QueueGate.NAME + "\"}]");
        Manifest validating = named(file, VALIDATING, "muster-queue-gate-lift");
        assertThat(Tree.maps(validating.spec(), "matchConstraints", "resourceRules")).containsExactly(Map.of(
                "apiGroups", List.of(""), "apiVersions", List.of("v1"), "operations", List.of("UPDATE"), "resources", List.of("pods")));
        assertThat(validating.spec().toString()).contains("system:serviceaccount:muster-system:muster-extender", "cluster-autoscaler.kubernetes.io/");
    }

    @Test
    void offByDefaultNoPolicyAndTheExtenderLiftsNothing() {
        Rendered chart = Chart.render(Install.defaults());
        assertThat(chart.manifests()).noneMatch(m -> m.name().startsWith("muster-queue-gate"));
        assertThat(extenderArgs(chart)).contains("--queue-admission-gate=false");
        assertThat(extenderArgs(Chart.render(Install.with("extender.queueGate.enabled", true)))).contains("--queue-admission-gate=true");
    }

    @Test
    void anotherReleaseNamesItsOwnExtenderServiceAccount() {
        Rendered chart = Chart.render(Install.with("extender.queueGate.enabled", true).in("prod", "batch"));
        Manifest validating = named(chart.manifests(), VALIDATING, "prod-muster-queue-gate-lift");
        assertThat(validating.spec().toString()).contains("system:serviceaccount:batch:prod-muster-extender")
                .doesNotContain("muster-system");
    }

    private static List<String> extenderArgs(Rendered chart) {
        Manifest deployment = chart.ofKind("Deployment").stream().filter(d -> d.name().endsWith("-extender")).findFirst().orElseThrow();
        return Tree.strings(deployment.containers().getFirst(), "args");
    }
}
