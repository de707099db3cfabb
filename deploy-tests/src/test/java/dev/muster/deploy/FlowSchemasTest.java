package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.deploy.Chart.Install;
import dev.muster.deploy.Chart.Rendered;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chart's FlowSchemas put the chart's kube-scheduler and the extender's Bindings, Evictions and pod status patches at
 * kube-scheduler's priority level (workload-high), matched by their ServiceAccounts; the extender's reads are left out.
 */
class FlowSchemasTest {
    private static final String API_VERSION = "flowcontrol.apiserver.k8s.io/v1";

    @Test
    void theExtendersSchedulingWritesRideWorkloadHighMatchedByItsServiceAccount() {
        Rendered chart = Chart.render(Install.defaults());
        Manifest fs = chart.one("FlowSchema", "muster-extender");
        assertThat(Tree.string(fs.body(), "apiVersion")).isEqualTo(API_VERSION);
        assertThat(Tree.map(fs.body(), "metadata")).doesNotContainKey("namespace");
        assertThat(Tree.string(fs.spec(), "priorityLevelConfiguration", "name")).isEqualTo("workload-high");
        assertThat(fs.spec()).containsEntry("matchingPrecedence", 800);
        List<Map<String, Object>> rules = Tree.maps(fs.spec(), "rules");
        assertThat(rules).hasSize(1);
        assertThat(Tree.maps(rules.getFirst(), "subjects")).containsExactly(Map.of("kind", "ServiceAccount",
                "serviceAccount", Map.of("name", serviceAccount(chart, "extender"), "namespace", Chart.DEFAULT_NAMESPACE)));
        List<Map<String, Object>> resources = Tree.maps(rules.getFirst(), "resourceRules");
        assertThat(resources).containsExactly(
                Map.of("apiGroups", List.of(""), "resources", List.of("pods/binding", "pods/eviction"), "verbs", List.of("create"),
                        "namespaces", List.of("*")),
                Map.of("apiGroups", List.of(""), "resources", List.of("pods/status"), "verbs", List.of("patch"), "namespaces", List.of("*")));
        assertThat(rules.getFirst()).doesNotContainKey("nonResourceRules");

        // each write it lifts is one the extender's ClusterRole grants (nothing else of its own is lifted)
        Manifest role = chart.one("ClusterRole", "muster-extender");
        for (Map<String, Object> r : resources) {
            for (String resource : Tree.strings(r, "resources")) {
                String verb = Tree.strings(r, "verbs").getFirst();
                assertThat(Tree.maps(role.body(), "rules")).as(resource + " " + verb).anyMatch(g -> Tree.strings(g, "resources").contains(resource)
                        && Tree.strings(g, "verbs").contains(verb));
            }
        }
    }

    @Test
    void theChartsKubeSchedulerRidesWorkloadHighForAllItsRequestsLikeTheBuiltInSchema() {
        Rendered chart = Chart.render(Install.defaults());
        Manifest fs = chart.one("FlowSchema", "muster-scheduler");
        assertThat(Tree.string(fs.spec(), "priorityLevelConfiguration", "name")).isEqualTo("workload-high");
        Map<String, Object> rule = Tree.maps(fs.spec(), "rules").getFirst();
        assertThat(Tree.maps(rule, "subjects")).containsExactly(Map.of("kind", "ServiceAccount",
                "serviceAccount", Map.of("name", serviceAccount(chart, "scheduler"), "namespace", Chart.DEFAULT_NAMESPACE)));
        assertThat(Tree.maps(rule, "resourceRules")).containsExactly(Map.of("apiGroups", List.of("*"), "resources", List.of("*"),
                "verbs", List.of("*"), "clusterScope", true, "namespaces", List.of("*")));
        assertThat(Tree.maps(rule, "nonResourceRules")).containsExactly(Map.of("nonResourceURLs", List.of("*"), "verbs", List.of("*")));
    }

    @Test
    void theLevelAndPrecedenceAreValuesAndTheSchemasCanBeLeftOut() {
        Rendered custom = Chart.render(Install.with("flowControl.priorityLevel", "muster-high", "flowControl.matchingPrecedence", 700));
        for (Manifest fs : custom.ofKind("FlowSchema")) {
            assertThat(Tree.string(fs.spec(), "priorityLevelConfiguration", "name")).isEqualTo("muster-high");
            assertThat(fs.spec()).containsEntry("matchingPrecedence", 700);
        }
        assertThat(custom.ofKind("FlowSchema")).hasSize(2);
        assertThat(Chart.render(Install.with("flowControl.enabled", false)).ofKind("FlowSchema")).isEmpty();
    }

    private static String serviceAccount(Rendered chart, String component) {
        return Tree.string(chart.deployment(component).spec(), "template", "spec", "serviceAccountName");
    }
}
