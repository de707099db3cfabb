package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.podGroup;
import static dev.muster.common.kube.KubeObjects.queue;
import static dev.muster.common.kube.KubeObjects.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class VolcanoConvertersTest {

    @Test
    void podGroupWithEveryField() {
        VolcanoPodGroup pg = podGroup("team-a", "train", """
                {"minMember": 8, "minTaskMember": {"ps": 2, "worker": 6}, "queue": "research",
                 "priorityClassName": "high", "minResources": {"cpu": 32, "memory": "128Gi", "nvidia.com/gpu": "8"}}""");
        pg.getMetadata().putAnnotationsItem(GangMembership.DEADLINE_ANNOTATION, "1m30s");
        PodGroupSpec spec = PodGroupConverter.toCore(pg);
        assertThat(spec).isEqualTo(new PodGroupSpec(new GangKey("team-a", "train"), 8, Map.of("ps", 2, "worker", 6),
                res("cpu=32,memory=128Gi,nvidia.com/gpu=8"), "research", "high", Duration.ofSeconds(90)));
    }

    static Stream<Arguments> podGroups() {
        return Stream.of(
                Arguments.of("empty spec: queue default, minMember 0", podGroup("ns", "pg", "{}"),
                        new PodGroupSpec(new GangKey("ns", "pg"), 0, Map.of(), Resources.ZERO, "default", "", null)),
                Arguments.of("absent spec", podGroup("ns", "pg", null),
                        new PodGroupSpec(new GangKey("ns", "pg"), 0, Map.of(), Resources.ZERO, "default", "", null)),
                Arguments.of("empty queue string is the default queue", podGroup("ns", "pg", "{\"minMember\": 2, \"queue\": \"\"}"),
                        PodGroupSpec.of(new GangKey("ns", "pg"), 2, "default")),
                Arguments.of("minMember written as 3.0", podGroup("ns", "pg", "{\"minMember\": 3.0}"),
                        PodGroupSpec.of(new GangKey("ns", "pg"), 3, "default")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("podGroups")
    void podGroupDefaults(String name, VolcanoPodGroup pg, PodGroupSpec expected) {
        assertThat(PodGroupConverter.toCore(pg)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "deadline annotation \"{0}\" → {1}")
    @CsvSource(nullValues = "none", value = {"90s, PT1M30S", "2m, PT2M", "500ms, PT0.5S", "soon, none", "0s, none", "'', none"})
    void deadlineAnnotationOverridesOrFallsBack(String annotation, String expected) {
        VolcanoPodGroup pg = podGroup("ns", "pg", "{\"minMember\": 1}");
        pg.getMetadata().putAnnotationsItem(GangMembership.DEADLINE_ANNOTATION, annotation);
        assertThat(PodGroupConverter.toCore(pg).deadline()).isEqualTo(expected == null ? null : Duration.parse(expected));
    }

    static Stream<Arguments> invalidPodGroups() {
        return Stream.of(
                Arguments.of("minMember not a number", "{\"minMember\": \"three\"}", "podgroup ns/pg spec: minMember: expected a whole number"),
                Arguments.of("minMember fractional", "{\"minMember\": 2.5}", "minMember: expected a whole number"),
                Arguments.of("minMember negative", "{\"minMember\": -1}", "minMember must not be negative"),
                Arguments.of("minTaskMember value not a number", "{\"minTaskMember\": {\"ps\": \"x\"}}", "minTaskMember.ps: expected a whole number"),
                Arguments.of("minResources nonsense quantity", "{\"minResources\": {\"cpu\": \"lots\"}}",
                        "podgroup ns/pg spec.minResources: cpu: quantity \"lots\" does not start with a number"),
                Arguments.of("minResources not a map", "{\"minResources\": [1]}", "spec.minResources: expected a map"),
                Arguments.of("queue not a string", "{\"queue\": 7}", "queue: expected a string"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidPodGroups")
    void invalidPodGroups(String name, String spec, String message) {
        assertThatThrownBy(() -> PodGroupConverter.toCore(podGroup("ns", "pg", spec)))
                .isInstanceOf(ConversionException.class).hasMessageContaining(message);
    }

    static Stream<Arguments> queues() {
        return Stream.of(
                Arguments.of("empty spec: open, weight 1, unlimited, reclaimable", queue("default", "{}", null),
                        new QueueSpec("default", QueueState.OPEN, 1, null, Resources.ZERO, Resources.ZERO, true)),
                Arguments.of("every field", queue("research", """
                                {"weight": 4, "capability": {"cpu": "100", "memory": "400Gi"}, "deserved": {"cpu": 50},
                                 "guarantee": {"resource": {"cpu": "10"}}, "reclaimable": false}""", "{\"state\": \"Open\"}"),
                        new QueueSpec("research", QueueState.OPEN, 4, res("cpu=100,memory=400Gi"), res("cpu=50"), res("cpu=10"), false)),
                Arguments.of("empty capability map is unlimited", queue("q", "{\"capability\": {}}", null),
                        new QueueSpec("q", QueueState.OPEN, 1, null, Resources.ZERO, Resources.ZERO, true)),
                Arguments.of("zero capability is a real limit", queue("q", "{\"capability\": {\"cpu\": 0}}", null),
                        new QueueSpec("q", QueueState.OPEN, 1, Resources.ZERO, Resources.ZERO, Resources.ZERO, true)),
                Arguments.of("weight 0 is Volcano's default 1", queue("q", "{\"weight\": 0}", null),
                        new QueueSpec("q", QueueState.OPEN, 1, null, Resources.ZERO, Resources.ZERO, true)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queues")
    void queueConversion(String name, VolcanoQueue queue, QueueSpec expected) {
        assertThat(QueueConverter.toCore(queue)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "spec.state={0} status.state={1} → {2}")
    @CsvSource(nullValues = "none", value = {
            "none, none, OPEN", "none, Open, OPEN", "none, Closed, CLOSED", "none, Closing, CLOSED", "none, Unknown, UNKNOWN",
            "none, closed, CLOSED", "Closed, Open, CLOSED", "Closed, none, CLOSED", "Closing, Open, CLOSED", "Bogus, Open, UNKNOWN",
            // the spec's wish wins: the status Closed the controller wrote while the spec said Closed does not latch the queue
            "Open, Closed, OPEN", "Open, Closing, OPEN", "none, Bogus, UNKNOWN"})
    void queueState(String specState, String statusState, QueueState expected) {
        String spec = specState == null ? "{}" : "{\"state\": \"" + specState + "\"}";
        String status = statusState == null ? null : "{\"state\": \"" + statusState + "\"}";
        assertThat(QueueConverter.toCore(queue("q", spec, status)).state()).isEqualTo(expected);
    }

    static Stream<Arguments> invalidQueues() {
        return Stream.of(
                Arguments.of("capability nonsense", "{\"capability\": {\"memory\": \"12 GB\"}}", "queue q spec.capability: memory"),
                Arguments.of("guarantee.resource nonsense", "{\"guarantee\": {\"resource\": {\"cpu\": \"x\"}}}", "queue q spec.guarantee.resource: cpu"),
                Arguments.of("negative weight", "{\"weight\": -2}", "weight must not be negative"),
                Arguments.of("reclaimable not a boolean", "{\"reclaimable\": \"yes\"}", "reclaimable: expected true or false"),
                Arguments.of("capability value is an object", "{\"capability\": {\"cpu\": {\"v\": 1}}}", "cpu: expected a quantity"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidQueues")
    void invalidQueues(String name, String spec, String message) {
        assertThatThrownBy(() -> QueueConverter.toCore(queue("q", spec, null)))
                .isInstanceOf(ConversionException.class).hasMessageContaining(message);
    }
}
