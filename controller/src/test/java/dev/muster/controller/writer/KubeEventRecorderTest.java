package dev.muster.controller.writer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.GangClaims;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.status.GangNote;
import dev.muster.core.status.GangShortfall;
import io.kubernetes.client.openapi.ApiClient;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KubeEventRecorderTest {
    private static final Instant AT = Instant.parse("2026-11-26T10:00:00.123456789Z");

    @Test
    void aLossIsAWarningRegardingThePodGroup() {
        GangShortfall loss = new GangShortfall(new GangKey("ml", "train"), false, 3, 4, List.of("ml/train-2"));
        Map<String, Object> body = KubeEventRecorder.body(loss.asNote(), "scheduling.k8s.io/v1alpha2", AT, "muster-controller-7f9c");
        assertThat(body).containsEntry("apiVersion", "events.k8s.io/v1").containsEntry("kind", "Event")
                .containsEntry("eventTime", "2026-11-26T10:00:00.123456Z")
                .containsEntry("reportingController", "muster.dev/controller").containsEntry("reportingInstance", "muster-controller-7f9c")
                .containsEntry("action", "CountMembers").containsEntry("reason", "GangBelowMinimum").containsEntry("type", "Warning")
                .containsEntry("note", "3 of minimum 4 members bound; lost: ml/train-2")
                .containsEntry("regarding", Map.of("apiVersion", "scheduling.k8s.io/v1alpha2", "kind", "PodGroup", "namespace", "ml", "name", "train"));
        assertThat(body.get("metadata")).isEqualTo(Map.of("name", "train." + Long.toHexString(1_795_687_200_123_456_789L), "namespace", "ml"));
    }

    @Test
    void wholeAgainIsNormal() {
        GangShortfall whole = new GangShortfall(new GangKey("ml", "train"), true, 4, 4, List.of());
        Map<String, Object> body = KubeEventRecorder.body(whole.asNote(), "scheduling.volcano.sh/v1beta1", AT, "c");
        assertThat(body).containsEntry("reason", "GangWhole").containsEntry("type", "Normal");
    }

    @Test
    void preemptionsAreEventsOnBothSides() {
        GangNote victim = new GangNote(new GangKey("ml", "low"), "Preempted", true, "Preempt",
                "preempted by ml/train-big (priority 1000) to place 8 pods; evicting 8 of its pods");
        assertThat(KubeEventRecorder.body(victim, "scheduling.volcano.sh/v1beta1", AT, "c")).containsEntry("action", "Preempt")
                .containsEntry("reason", "Preempted").containsEntry("type", "Warning").containsEntry("note", victim.note());
        GangNote preemptor = new GangNote(new GangKey("ml", "train-big"), "Preempting", false, "Preempt", "preempting 1 gang (8 pods) on 2 nodes");
        assertThat(KubeEventRecorder.body(preemptor, "scheduling.volcano.sh/v1beta1", AT, "c")).containsEntry("reason", "Preempting")
                .containsEntry("type", "Normal").containsEntry("regarding",
                        Map.of("apiVersion", "scheduling.volcano.sh/v1beta1", "kind", "PodGroup", "namespace", "ml", "name", "train-big"));
    }

    @Test
    void longNamesStayWithinTheApiLimits() {
        String name = "p".repeat(253);
        GangShortfall loss = new GangShortfall(new GangKey("ml", name), false, 0, 9, List.of("ml/" + name, "ml/" + name, "ml/" + name, "ml/" + name));
        Map<String, Object> body = KubeEventRecorder.body(loss.asNote(), "v", AT, "i".repeat(300));
        assertThat(((Map<?, ?>) body.get("metadata")).get("name").toString()).hasSizeLessThanOrEqualTo(253);
        assertThat(body.get("note").toString()).hasSizeLessThanOrEqualTo(1000);
        assertThat(body.get("reportingInstance").toString()).hasSize(128);
    }

    @Test
    void theRegardedVersionIsTheOwningApisServedOne() {
        GangClaims claims = new GangClaims();
        KubeEventRecorder r = new KubeEventRecorder(new ApiClient(), claims, null, Clock.systemUTC(), null);
        assertThat(r.apiVersionOf(null)).isEqualTo("scheduling.volcano.sh/v1beta1");
        assertThat(r.apiVersionOf(GangApi.VOLCANO)).isEqualTo("scheduling.volcano.sh/v1beta1");
        assertThat(r.apiVersionOf(GangApi.SCHEDULER_PLUGINS)).isEqualTo("scheduling.x-k8s.io/v1alpha1");
        assertThat(r.apiVersionOf(GangApi.KUBERNETES)).startsWith("scheduling.k8s.io/v1");
    }
}
