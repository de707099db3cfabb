package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.QueueState;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.status.PodGroupCondition;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.QueueStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class StatusJsonTest {

    static Stream<Arguments> queueStatuses() {
        return Stream.of(
                Arguments.of("written by us (Gson numbers are doubles)", Map.of("state", "Closing", "pending", 1.0, "running", 2.0,
                        "allocated", Map.of("cpu", "1500m", "memory", "2Gi", "nvidia.com/gpu", "2")),
                        new QueueStatus(QueueState.CLOSING, 1, 0, 2, 0, 0, Resources.builder().set(ResourceNames.CPU, 1500)
                                .set(ResourceNames.MEMORY, 2L << 30).set("nvidia.com/gpu", 2).build())),
                Arguments.of("written by Volcano: omitted zero counts, a zero quantity", Map.of("state", "Open",
                        "allocated", Map.of("cpu", "0", "pods", "0")), new QueueStatus(QueueState.OPEN, 0, 0, 0, 0, 0, Resources.ZERO)),
                Arguments.of("no state is not a state we write", Map.of("running", 3), new QueueStatus(QueueState.UNKNOWN, 0, 0, 3, 0, 0, Resources.ZERO)),
                Arguments.of("absent", Map.of(), null),
                Arguments.of("nonsense quantity: unknown, so it gets written", Map.of("state", "Open", "allocated", Map.of("cpu", "lots")), null),
                Arguments.of("nonsense count", Map.of("state", "Open", "running", "many"), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("queueStatuses")
    void parsesObservedQueueStatus(String name, Map<String, Object> json, QueueStatus expected) {
        assertThat(StatusJson.parseQueue(json)).isEqualTo(expected);
    }

    static Stream<Arguments> podGroupStatuses() {
        Instant t = Instant.parse("2025-01-01T00:00:00Z");
        return Stream.of(
                Arguments.of("phase, counts and a condition", Map.of("phase", "Running", "running", 2.0, "conditions",
                        List.of(Map.of("type", "Scheduled", "status", "True", "reason", "GangBound", "message", "m",
                                "lastTransitionTime", "2025-01-01T00:00:00Z", "transitionID", "volcano-only field"))),
                        new PodGroupStatus(PodGroupPhase.RUNNING, List.of(new PodGroupCondition("Scheduled", "True", "GangBound", "m", t)), 2, 0, 0)),
                Arguments.of("Volcano's minimal status", Map.of("phase", "Pending"), new PodGroupStatus(PodGroupPhase.PENDING, List.of(), 0, 0, 0)),
                Arguments.of("no phase", Map.of("running", 1), null),
                Arguments.of("unknown phase", Map.of("phase", "Exploded"), null),
                Arguments.of("bad time", Map.of("phase", "Pending", "conditions", List.of(Map.of("type", "Scheduled", "status", "True",
                        "lastTransitionTime", "yesterday"))), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("podGroupStatuses")
    void parsesObservedPodGroupStatus(String name, Map<String, Object> json, PodGroupStatus expected) {
        assertThat(StatusJson.parsePodGroup(json)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "round trip: {0}")
    @MethodSource("queueStatuses")
    void whatWeWriteReadsBackEqual(String name, Map<String, Object> json, QueueStatus status) {
        if (status != null && status.state() != QueueState.UNKNOWN) {
            Object written = StatusJson.patchBody(status, null).get("status");
            assertThat(StatusJson.parseQueue(written)).isEqualTo(status);
        }
    }

    static Stream<Arguments> otherShapes() {
        Instant t0 = Instant.parse("2025-01-01T00:00:00Z");
        Instant t1 = Instant.parse("2025-01-01T00:01:00Z");
        PodGroupCondition bound = new PodGroupCondition("Scheduled", "True", "GangBound", "at least 2 members bound together", t1);
        PodGroupCondition refused = new PodGroupCondition("Unschedulable", "True", "NotEnoughResources", "needs 2×(4 cpu), fits 1", t0);
        return Stream.of(
                Arguments.of("waiting", new PodGroupStatus(PodGroupPhase.PENDING, List.of(), 0, 0, 0),
                        "{\"status\":{\"conditions\":[]}}",
                        "{\"status\":{\"phase\":\"Pending\",\"running\":0,\"succeeded\":0,\"failed\":0,\"scheduled\":0,\"occupiedBy\":null,\"scheduleStartTime\":null}}"),
                Arguments.of("refused", new PodGroupStatus(PodGroupPhase.PENDING, List.of(refused), 0, 0, 0),
                        "{\"status\":{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
                                + "\"message\":\"needs 2×(4 cpu), fits 1\",\"lastTransitionTime\":\"2025-01-01T00:00:00Z\"}]}}",
                        "{\"status\":{\"phase\":\"Pending\",\"running\":0,\"succeeded\":0,\"failed\":0,\"scheduled\":0,\"occupiedBy\":null,\"scheduleStartTime\":\"2025-01-01T00:00:00Z\"}}"),
                Arguments.of("bound, not running yet", new PodGroupStatus(PodGroupPhase.INQUEUE, List.of(bound), 0, 0, 0),
                        "{\"status\":{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"True\",\"reason\":\"Scheduled\","
                                + "\"message\":\"at least 2 members bound together\",\"lastTransitionTime\":\"2025-01-01T00:01:00Z\"}]}}",
                        "{\"status\":{\"phase\":\"Scheduling\",\"running\":0,\"succeeded\":0,\"failed\":0,\"scheduled\":0,\"occupiedBy\":null,\"scheduleStartTime\":\"2025-01-01T00:01:00Z\"}}"),
                Arguments.of("Volcano's Running (bound) before any member runs", new PodGroupStatus(PodGroupPhase.RUNNING, List.of(bound), 0, 0, 0),
                        "{\"status\":{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"True\",\"reason\":\"Scheduled\","
                                + "\"message\":\"at least 2 members bound together\",\"lastTransitionTime\":\"2025-01-01T00:01:00Z\"}]}}",
                        "{\"status\":{\"phase\":\"Scheduling\",\"running\":0,\"succeeded\":0,\"failed\":0,\"scheduled\":0,\"occupiedBy\":null,\"scheduleStartTime\":\"2025-01-01T00:01:00Z\"}}"),
                Arguments.of("running", new PodGroupStatus(PodGroupPhase.RUNNING, List.of(bound), 2, 0, 0, 2, "ns/job-a,ns/job-b"),
                        "{\"status\":{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"True\",\"reason\":\"Scheduled\","
                                + "\"message\":\"at least 2 members bound together\",\"lastTransitionTime\":\"2025-01-01T00:01:00Z\"}]}}",
                        "{\"status\":{\"phase\":\"Running\",\"running\":2,\"succeeded\":0,\"failed\":0,\"scheduled\":2,\"occupiedBy\":\"ns/job-a,ns/job-b\",\"scheduleStartTime\":\"2025-01-01T00:01:00Z\"}}"),
                Arguments.of("preempted after running: the Kubernetes shape tells it, scheduler-plugins' has no conditions",
                        new PodGroupStatus(PodGroupPhase.PENDING, List.of(refused, new PodGroupCondition("Preempted", "True", "PriorityPreemption",
                                "preempted by ns/big (priority 9); evicting 2 of its pods", t1.plusSeconds(60))), 0, 0, 0),
                        "{\"status\":{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
                                + "\"message\":\"needs 2×(4 cpu), fits 1\",\"lastTransitionTime\":\"2025-01-01T00:00:00Z\"},"
                                + "{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":\"PreemptionByScheduler\","
                                + "\"message\":\"preempted by ns/big (priority 9); evicting 2 of its pods\",\"lastTransitionTime\":\"2025-01-01T00:02:00Z\"}]}}",
                        "{\"status\":{\"phase\":\"Pending\",\"running\":0,\"succeeded\":0,\"failed\":0,\"scheduled\":0,\"occupiedBy\":null,\"scheduleStartTime\":\"2025-01-01T00:00:00Z\"}}"),
                Arguments.of("completed with a failure", new PodGroupStatus(PodGroupPhase.COMPLETED, List.of(bound), 0, 1, 1),
                        "{\"status\":{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"True\",\"reason\":\"Scheduled\","
                                + "\"message\":\"at least 2 members bound together\",\"lastTransitionTime\":\"2025-01-01T00:01:00Z\"}]}}",
                        "{\"status\":{\"phase\":\"Failed\",\"running\":0,\"succeeded\":1,\"failed\":1,\"scheduled\":0,\"occupiedBy\":null,\"scheduleStartTime\":\"2025-01-01T00:01:00Z\"}}"));
    }

    @ParameterizedTest(name = "each API's shape: {0}")
    @MethodSource("otherShapes")
    void kubernetesAndSchedulerPluginsShapes(String name, PodGroupStatus status, String kubernetes, String schedulerPlugins) {
        com.google.gson.Gson gson = new com.google.gson.GsonBuilder().serializeNulls().disableHtmlEscaping().create();
        assertThat(gson.toJson(StatusJson.patchBody(dev.muster.core.model.GangApi.KUBERNETES, "v1alpha2", status, null))).isEqualTo(kubernetes);
        assertThat(gson.toJson(StatusJson.patchBody(dev.muster.core.model.GangApi.SCHEDULER_PLUGINS, null, status, null))).isEqualTo(schedulerPlugins);
        assertThat(StatusJson.patchBody(dev.muster.core.model.GangApi.VOLCANO, null, status, null)).isEqualTo(StatusJson.patchBody(status, null));
    }

    @ParameterizedTest(name = "read back in each API's shape: {0}")
    @MethodSource("otherShapes")
    void eachApisShapeReadsBackToTheSameWrite(String name, PodGroupStatus status, String kubernetes, String schedulerPlugins) {
        com.google.gson.Gson gson = new com.google.gson.GsonBuilder().serializeNulls().disableHtmlEscaping().create();
        for (var api : List.of(dev.muster.core.model.GangApi.KUBERNETES, dev.muster.core.model.GangApi.SCHEDULER_PLUGINS)) {
            Map<String, Object> written = StatusJson.patchBody(api, "v1alpha2", status, null);
            // as the informer hands it over: JSON decoded to maps (numbers as doubles), nulls dropped by the API server
            Object observed = gson.fromJson(gson.toJson(written.get("status")).replace(",\"occupiedBy\":null", ""), Map.class);
            PodGroupStatus back = StatusJson.parse(api, observed);
            assertThat(back).as(api.name()).isNotNull();
            assertThat(StatusJson.patchBody(api, "v1alpha2", back, null)).as(api.name()).isEqualTo(written);
        }
    }

    @org.junit.jupiter.api.Test
    void unreadableOrAbsentStatusOfTheOtherApisIsUnknown() {
        assertThat(StatusJson.parse(dev.muster.core.model.GangApi.KUBERNETES, Map.of())).isNull();
        assertThat(StatusJson.parse(dev.muster.core.model.GangApi.SCHEDULER_PLUGINS, Map.of("phase", "Running", "scheduleStartTime", "yesterday"))).isNull();
        assertThat(StatusJson.parse(dev.muster.core.model.GangApi.SCHEDULER_PLUGINS, Map.of("phase", "Running", "running", "many"))).isNull();
    }
}
