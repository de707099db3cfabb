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
        assertThat(status.get("conditions")).asList().singleElement().isEqualTo(condition(served, type));
    }

    @Test
    void disruptionTargetWrittenByAnotherIsNotReadAsMusters() {
        PodGroupStatus read = StatusJson.parse(GangApi.KUBERNETES, statusOf("v1beta1-podgroup.json"));
        assertThat(read.conditions()).extracting(PodGroupCondition::type).containsExactly(PodGroupCondition.SCHEDULED);
        assertThat(read.initiallyScheduled()).isEqualTo(read.conditions().getFirst());
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
