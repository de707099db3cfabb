package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * charts/muster/crds holds PodGroup and Queue definitions that Volcano's objects fit unchanged
 * (scheduling.volcano.sh/v1beta1; PodGroup without, Queue with a status subresource).
 */
class CrdCompatibilityTest {
    private static final String GROUP = "scheduling.volcano.sh";

    private static Map<String, Object> crd(String plural) {
        Path file = RepoLayout.find().chart().resolve("crds/" + GROUP + "_" + plural + ".yaml");
        try {
            List<Manifest> docs = Chart.parse(Files.readString(file));
            assertThat(docs).as(file.toString()).hasSize(1);
            return docs.get(0).body();
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }

    private static Map<String, Object> v1beta1(Map<String, Object> crd) {
        List<Map<String, Object>> versions = Tree.maps(crd, "spec", "versions");
        assertThat(versions).extracting(v -> v.get("name")).containsExactly("v1beta1");
        assertThat(versions.get(0)).containsEntry("served", true).containsEntry("storage", true);
        return versions.get(0);
    }

    private static Map<String, Object> schema(Map<String, Object> crd, String... path) {
        Map<String, Object> node = Tree.map(v1beta1(crd), "schema", "openAPIV3Schema");
        for (String property : path) {
            node = Tree.map(node, "properties", property);
            assertThat(node).as("schema property %s", String.join(".", path)).isNotEmpty();
        }
        return node;
    }

    @Test
    void everyFileInCrdsIsOneOfTheTwoVolcanoCrds() throws IOException {
        try (Stream<Path> files = Files.list(RepoLayout.find().chart().resolve("crds"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(GROUP + "_podgroups.yaml", GROUP + "_queues.yaml");
        }
    }

    @Test
    void podGroupIsNamespacedWithoutStatusSubresource() {
        Map<String, Object> crd = crd("podgroups");
        assertThat(Tree.string(crd, "apiVersion")).isEqualTo("apiextensions.k8s.io/v1");
        assertThat(Tree.string(crd, "metadata", "name")).isEqualTo("podgroups." + GROUP);
        assertThat(Tree.string(crd, "spec", "group")).isEqualTo(GROUP);
        assertThat(Tree.string(crd, "spec", "scope")).isEqualTo("Namespaced");
        assertThat(Tree.map(crd, "spec", "names")).containsEntry("kind", "PodGroup").containsEntry("plural", "podgroups");
        assertThat(Tree.strings(crd, "spec", "names", "shortNames")).contains("pg");
        assertThat(Tree.map(v1beta1(crd), "subresources")).as("Volcano's PodGroup has no status subresource").doesNotContainKey("status");
    }

    @Test
    void queueIsClusterScopedWithStatusSubresource() {
        Map<String, Object> crd = crd("queues");
        assertThat(Tree.string(crd, "metadata", "name")).isEqualTo("queues." + GROUP);
        assertThat(Tree.string(crd, "spec", "scope")).isEqualTo("Cluster");
        assertThat(Tree.map(crd, "spec", "names")).containsEntry("kind", "Queue").containsEntry("plural", "queues");
        assertThat(Tree.map(v1beta1(crd), "subresources")).containsKey("status");
    }

    static Stream<Arguments> fields() {
        return Stream.of(
                Arguments.of("podgroups", "spec.minMember", "int32"),
                Arguments.of("podgroups", "spec.minTaskMember", "map of int32"),
                Arguments.of("podgroups", "spec.minResources", "map of quantity"),
                Arguments.of("podgroups", "spec.queue", "string"),
                Arguments.of("podgroups", "spec.priorityClassName", "string"),
                Arguments.of("podgroups", "status.phase", "string"),
                Arguments.of("podgroups", "status.conditions", "conditions"),
                Arguments.of("podgroups", "status.running", "int32"),
                Arguments.of("podgroups", "status.succeeded", "int32"),
                Arguments.of("podgroups", "status.failed", "int32"),
                Arguments.of("queues", "spec.weight", "int32"),
                Arguments.of("queues", "spec.capability", "map of quantity"),
                Arguments.of("queues", "spec.deserved", "map of quantity"),
                Arguments.of("queues", "spec.guarantee.resource", "map of quantity"),
                Arguments.of("queues", "spec.reclaimable", "boolean"),
                Arguments.of("queues", "status.state", "string"),
                Arguments.of("queues", "status.pending", "int32"),
                Arguments.of("queues", "status.inqueue", "int32"),
                Arguments.of("queues", "status.running", "int32"),
                Arguments.of("queues", "status.unknown", "int32"),
                Arguments.of("queues", "status.completed", "int32"),
                Arguments.of("queues", "status.allocated", "map of quantity"));
    }

    @ParameterizedTest(name = "{0} {1} is {2}")
    @MethodSource("fields")
    void fieldHasVolcanosType(String plural, String path, String type) {
        Map<String, Object> field = schema(crd(plural), path.split("\\."));
        switch (type) {
            case "int32" -> assertThat(field).containsEntry("type", "integer").containsEntry("format", "int32");
            case "string" -> assertThat(field).containsEntry("type", "string");
            case "boolean" -> assertThat(field).containsEntry("type", "boolean");
            case "map of int32" -> {
                assertThat(field).containsEntry("type", "object");
                assertThat(Tree.map(field, "additionalProperties")).containsEntry("type", "integer").containsEntry("format", "int32");
            }
            case "map of quantity" -> {
                assertThat(field).containsEntry("type", "object");
                Map<String, Object> value = Tree.map(field, "additionalProperties");
                assertThat(value).containsEntry("x-kubernetes-int-or-string", true);
                assertThat(Tree.maps(value, "anyOf")).containsExactly(Map.of("type", "integer"), Map.of("type", "string"));
                assertThat(Tree.string(value, "pattern")).isNotBlank();
            }
            case "conditions" -> {
                assertThat(field).containsEntry("type", "array");
                assertThat(Tree.map(field, "items", "properties").keySet()).containsExactlyInAnyOrder(
                        "type", "status", "reason", "message", "lastTransitionTime", "transitionID");
                assertThat(Tree.map(field, "items", "properties", "lastTransitionTime")).containsEntry("format", "date-time");
            }
            default -> throw new IllegalArgumentException(type);
        }
    }

    @Test
    void phasesAndStatesAreVolcanos() {
        assertThat(Tree.strings(schema(crd("podgroups"), "status", "phase"), "enum"))
                .containsExactly("Pending", "Inqueue", "Running", "Unknown", "Completed");
        assertThat(Tree.strings(schema(crd("queues"), "status", "state"), "enum"))
                .containsExactly("Open", "Closed", "Closing", "Unknown");
    }

    @Test
    void podGroupQueueDefaultsToTheDefaultQueue() {
        assertThat(schema(crd("podgroups"), "spec", "queue")).containsEntry("default", "default");
    }

    @Test
    void fieldsVolcanoAddsLaterArePreservedNotPruned() {
        for (String plural : List.of("podgroups", "queues")) {
            for (String part : List.of("spec", "status")) {
                assertThat(schema(crd(plural), part)).as("%s %s", plural, part)
                        .containsEntry("x-kubernetes-preserve-unknown-fields", true);
            }
        }
    }
}
