package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.Gson;
import dev.muster.common.kube.KubeObjects;
import dev.muster.core.model.GangApi;
import dev.muster.core.status.PodGroupCondition;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Kubernetes PodGroup status as each version defines it: read back from golden objects written from the Go types
 * ({@code common/src/test/resources/kubernetes-podgroups}) and written again, and v1beta1's condition that never goes
 * back to False.
 */
class KubernetesStatusShapeTest {
    private static final Gson GSON = new Gson();
    private static final Instant T0 = Instant.parse("2026-07-24T08:01:05Z");
    private static final PodGroupCondition BOUND = new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE,
            PodGroupCondition.GANG_BOUND, "at least 8 members bound together", T0);
    private static final PodGroupCondition REFUSED = new PodGroupCondition(PodGroupCondition.UNSCHEDULABLE, PodGroupCondition.TRUE,
            PodGroupCondition.NOT_ENOUGH_RESOURCES, "gang ml/train-0: needs 8×(4 cpu), fits 5", T0.plusSeconds(3600));

    @SuppressWarnings("unchecked")
    private static Map<String, Object> statusOf(String goldenFile) {
        Map<String, Object> object = GSON.fromJson(KubeObjects.golden(goldenFile), Map.class);
        return (Map<String, Object>) object.get("status");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> condition(Map<String, Object> status, String type) {
        for (Object c : (List<Object>) status.get("conditions")) {
            if (type.equals(((Map<String, Object>) c).get("type"))) {
                return (Map<String, Object>) c;
            }
        }
        return null;
    }

    @ParameterizedTest(name = "{0} ({1})")
    @CsvSource({
            "v1beta1-podgroup.json,         v1beta1,  PodGroupInitiallyScheduled",
            "v1beta1-podgroup-waiting.json, v1beta1,  PodGroupInitiallyScheduled",
            "v1alpha2-podgroup.json,        v1alpha2, PodGroupScheduled"})
    void musterReadsItsConditionBackAndWritesItAgainAsServed(String file, String version, String type) {
        Map<String, Object> served = statusOf(file);
        PodGroupStatus read = StatusJson.parse(GangApi.KUBERNETES, served);
        Map<String, Object> written = StatusJson.patchBody(GangApi.KUBERNETES, version, read, null);
        @SuppressWarnings("unchecked")
        Map<String, Object> status = (Map<String, Object>) written.get("status");
        assertThat(status).as("conditions only: resourceClaimStatuses are the resource claim controller's").containsOnlyKeys("conditions");
        assertThat(status.get("conditions")).asList().first().isEqualTo(condition(served, type));
        if (condition(served, "DisruptionTarget") != null) { // kept, as Muster writes it (observedGeneration is not Muster's)
            Map<String, Object> kept = new java.util.LinkedHashMap<>(condition(served, "DisruptionTarget"));
            kept.remove("observedGeneration");
            assertThat(condition(status, "DisruptionTarget")).isEqualTo(kept);
        }
    }

    @Test
    void aDisruptionTargetIsReadAsTheGangsPreemptionNotAsItsScheduling() {
        PodGroupStatus read = StatusJson.parse(GangApi.KUBERNETES, statusOf("v1beta1-podgroup.json"));
        assertThat(read.conditions()).extracting(PodGroupCondition::type).containsExactly(PodGroupCondition.SCHEDULED, PodGroupCondition.PREEMPTED);
        assertThat(read.initiallyScheduled()).isEqualTo(read.conditions().getFirst());
        assertThat(read.condition(PodGroupCondition.PREEMPTED)).isEqualTo(new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.TRUE,
                PodGroupCondition.PRIORITY_PREEMPTION, "preempted to make room for ml/urgent", Instant.parse("2026-07-24T09:30:00Z")));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"v1beta1", "v1alpha2"})
    void aPreemptedGangHasDisruptionTargetTrueThenFalseOnceWholeAgain(String version) {
        PodGroupCondition preempted = new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.TRUE, PodGroupCondition.QUEUE_RECLAIM,
                "reclaimed by queue b for ml/x (priority 5) to place 8 pods; evicting 8 of its pods", T0.plusSeconds(60));
        PodGroupStatus evicted = new PodGroupStatus(PodGroupPhase.PENDING, List.of(REFUSED, preempted), 0, 0, 0, 0, "", BOUND);
        String scheduling = version.equals("v1beta1")
                ? "{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"True\",\"reason\":\"Scheduled\",\"message\":\"at least 8 members bound together\",\"lastTransitionTime\":\"2026-07-24T08:01:05Z\"}"
                : "{\"type\":\"PodGroupScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\",\"message\":\"gang ml/train-0: needs 8×(4 cpu), fits 5\",\"lastTransitionTime\":\"2026-07-24T09:01:05Z\"}";
        assertThat(GSON.toJson(StatusJson.patchBody(GangApi.KUBERNETES, version, evicted, null))).isEqualTo(
                "{\"status\":{\"conditions\":[" + scheduling + ",{\"type\":\"DisruptionTarget\",\"status\":\"True\",\"reason\":\"PreemptionByScheduler\","
                        + "\"message\":\"reclaimed by queue b for ml/x (priority 5) to place 8 pods; evicting 8 of its pods\","
                        + "\"lastTransitionTime\":\"2026-07-24T08:02:05Z\"}]}}");

        PodGroupCondition whole = new PodGroupCondition(PodGroupCondition.PREEMPTED, PodGroupCondition.FALSE, PodGroupCondition.GANG_WHOLE,
                "whole again since: " + preempted.message(), T0.plusSeconds(600));
        PodGroupStatus again = new PodGroupStatus(PodGroupPhase.RUNNING, List.of(BOUND, whole), 8, 0, 0, 8, "", BOUND);
        Map<String, Object> written = StatusJson.patchBody(GangApi.KUBERNETES, version, again, null);
        @SuppressWarnings("unchecked")
        Map<String, Object> status = (Map<String, Object>) written.get("status");
        assertThat(condition(status, "DisruptionTarget")).containsEntry("status", "False").containsEntry("reason", "GangWhole")
                .containsEntry("message", whole.message());
        PodGroupStatus readBack = StatusJson.parse(GangApi.KUBERNETES, GSON.fromJson(GSON.toJson(status), Map.class));
        assertThat(StatusJson.patchBody(GangApi.KUBERNETES, version, readBack, null)).as("read back, it writes the same").isEqualTo(written);
    }

    @Test
    void v1beta1StaysInitiallyScheduledWhenTheGangIsRefusedLaterWhileV1alpha2SaysFalse() {
        PodGroupStatus refusedAfterRunning = new PodGroupStatus(PodGroupPhase.PENDING, List.of(REFUSED), 0, 0, 0, 0, "", BOUND);
        assertThat(GSON.toJson(StatusJson.patchBody(GangApi.KUBERNETES, "v1beta1", refusedAfterRunning, null))).isEqualTo(
                "{\"status\":{\"conditions\":[{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"True\",\"reason\":\"Scheduled\","
                        + "\"message\":\"at least 8 members bound together\",\"lastTransitionTime\":\"2026-07-24T08:01:05Z\"}]}}");
        assertThat(GSON.toJson(StatusJson.patchBody(GangApi.KUBERNETES, "v1alpha2", refusedAfterRunning, null))).isEqualTo(
                "{\"status\":{\"conditions\":[{\"type\":\"PodGroupScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
                        + "\"message\":\"gang ml/train-0: needs 8×(4 cpu), fits 5\",\"lastTransitionTime\":\"2026-07-24T09:01:05Z\"}]}}");
    }

    @Test
    void v1beta1WaitingIsFalseWithMustersReasonAndNothingBeforeAnyDecision() {
        PodGroupStatus waiting = new PodGroupStatus(PodGroupPhase.PENDING, List.of(REFUSED), 0, 0, 0);
        assertThat(GSON.toJson(StatusJson.patchBody(GangApi.KUBERNETES, "v1beta1", waiting, null))).isEqualTo(
                "{\"status\":{\"conditions\":[{\"type\":\"PodGroupInitiallyScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\","
                        + "\"message\":\"gang ml/train-0: needs 8×(4 cpu), fits 5\",\"lastTransitionTime\":\"2026-07-24T09:01:05Z\"}]}}");
        PodGroupStatus undecided = new PodGroupStatus(PodGroupPhase.PENDING, List.of(), 0, 0, 0);
        assertThat(GSON.toJson(StatusJson.patchBody(GangApi.KUBERNETES, "v1beta1", undecided, null))).isEqualTo("{\"status\":{\"conditions\":[]}}");
    }
}
