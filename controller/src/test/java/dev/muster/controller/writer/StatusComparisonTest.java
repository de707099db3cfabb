package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.GangClaims;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.status.PodGroupCondition;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.StatusKey;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Whether a write would change anything is told in the shape of the API that owns the PodGroup. */
class StatusComparisonTest {
    private static final GangKey KEY = new GangKey("ns", "pg");
    private static final PodGroupCondition BOUND = new PodGroupCondition(PodGroupCondition.SCHEDULED, PodGroupCondition.TRUE, "GangBound",
            "at least 2 members bound together", Instant.parse("2025-01-01T00:01:00Z"));
    private final GangClaims claims = new GangClaims();
    private final KubeStatusPatcher patcher = new KubeStatusPatcher(new ApiClient(), System::nanoTime, claims, null);

    private void owner(GangApi api) {
        claims.claim(api, new PodGroupSpec(KEY, 2, Map.of(), null, "default", "", null, api, null), null);
    }

    @Test
    void aKubernetesPodGroupWhoseConditionIsRightIsNotWrittenAgainAfterARestart() {
        owner(GangApi.KUBERNETES);
        PodGroupStatus desired = new PodGroupStatus(PodGroupPhase.RUNNING, List.of(BOUND), 2, 0, 0, 2, "ns/job");
        Object shown = Map.of("conditions", List.of(Map.of("type", "PodGroupScheduled", "status", "True", "reason", "Scheduled",
                "message", "at least 2 members bound together", "lastTransitionTime", "2025-01-01T00:01:00Z")));
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, StatusJson.parse(GangApi.KUBERNETES, shown))).isTrue();
        Object stale = Map.of("conditions", List.of());
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, StatusJson.parse(GangApi.KUBERNETES, stale))).isFalse();
    }

    @Test
    void aSchedulerPluginsPodGroupComparesItsCountsAndOwners() {
        owner(GangApi.SCHEDULER_PLUGINS);
        PodGroupStatus desired = new PodGroupStatus(PodGroupPhase.RUNNING, List.of(BOUND), 2, 0, 0, 2, "ns/job");
        Map<String, Object> shown = new java.util.HashMap<>(Map.of("phase", "Running", "running", 2.0, "succeeded", 0.0, "failed", 0.0,
                "scheduled", 2.0, "occupiedBy", "ns/job", "scheduleStartTime", "2025-01-01T00:01:00Z"));
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, StatusJson.parse(GangApi.SCHEDULER_PLUGINS, shown))).isTrue();
        shown.put("scheduled", 1.0);
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, StatusJson.parse(GangApi.SCHEDULER_PLUGINS, shown))).isFalse();
        shown.remove("scheduled"); // a CRD without status.scheduled (newer scheduler-plugins schemas) prunes it: it cannot differ
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, StatusJson.parse(GangApi.SCHEDULER_PLUGINS, shown))).isTrue();
        shown.put("occupiedBy", "ns/other");
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, StatusJson.parse(GangApi.SCHEDULER_PLUGINS, shown))).isFalse();
    }

    @Test
    void aVolcanoPodGroupIgnoresWhatItsShapeDoesNotHold() {
        owner(GangApi.VOLCANO);
        PodGroupStatus desired = new PodGroupStatus(PodGroupPhase.RUNNING, List.of(BOUND), 2, 0, 0, 2, "ns/job");
        PodGroupStatus shown = new PodGroupStatus(PodGroupPhase.RUNNING, List.of(BOUND), 2, 0, 0);
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, shown)).isTrue();
        assertThat(patcher.same(StatusKey.podGroup(KEY), desired, null)).isFalse();
    }
}
