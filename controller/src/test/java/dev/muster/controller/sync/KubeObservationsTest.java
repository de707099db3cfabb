package dev.muster.controller.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonParser;
import dev.muster.common.kube.ConversionException;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodPhase;
import dev.muster.core.status.PodGroupPhase;
import dev.muster.core.status.PodObservation;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class KubeObservationsTest {

    private static V1Pod pod(Map<String, String> annotations, String node, String phase) {
        return new V1Pod().metadata(new V1ObjectMeta().uid("u1").namespace("team").name("w0").annotations(annotations))
                .spec(new V1PodSpec().nodeName(node)).status(phase == null ? null : new V1PodStatus().phase(phase));
    }

    static Stream<Arguments> pods() {
        GangKey train = new GangKey("team", "train");
        return Stream.of(
                Arguments.of("member, bound, running", pod(Map.of("scheduling.k8s.io/group-name", "train"), "n1", "Running"),
                        new PodObservation("u1", train, PodPhase.RUNNING, true)),
                Arguments.of("Volcano's annotation, not bound", pod(Map.of("scheduling.volcano.sh/group-name", "train"), null, "Pending"),
                        new PodObservation("u1", train, PodPhase.PENDING, false)),
                Arguments.of("empty node name is unbound", pod(Map.of("scheduling.k8s.io/group-name", "train"), "", null),
                        new PodObservation("u1", train, PodPhase.PENDING, false)),
                Arguments.of("not a member", pod(null, "n1", "Succeeded"), new PodObservation("u1", null, PodPhase.SUCCEEDED, true)),
                Arguments.of("a running member being deleted has left its gang", deleted(pod(Map.of("scheduling.k8s.io/group-name", "train"), "n1", "Running")),
                        new PodObservation("u1", null, PodPhase.RUNNING, true)),
                Arguments.of("a finished member being deleted still counts as finished",
                        deleted(pod(Map.of("scheduling.k8s.io/group-name", "train"), "n1", "Succeeded")),
                        new PodObservation("u1", train, PodPhase.SUCCEEDED, true)));
    }

    private static V1Pod deleted(V1Pod pod) {
        pod.getMetadata().deletionTimestamp(java.time.OffsetDateTime.parse("2026-01-01T00:00:00Z"));
        return pod;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pods")
    void podsBecomeObservations(String name, V1Pod pod, PodObservation expected) {
        assertThat(KubeObservations.pod(pod)).isEqualTo(expected);
    }

    @Test
    void ownersAreNamespacedSortedAndSurviveTheCacheTransform() {
        V1Pod p = pod(Map.of("scheduling.k8s.io/group-name", "train"), "n1", "Running");
        p.getMetadata().addOwnerReferencesItem(new io.kubernetes.client.openapi.models.V1OwnerReference().name("job-b").kind("Job"))
                .addOwnerReferencesItem(new io.kubernetes.client.openapi.models.V1OwnerReference().name("job-a").kind("JobSet"));
        assertThat(KubeObservations.pod(p).owners()).isEqualTo("team/job-a,team/job-b");
        assertThat(KubeObservations.pod((V1Pod) new MemberPods().transform(p)).owners()).isEqualTo("team/job-a,team/job-b");
    }

    @Test
    void aPodWithoutUidIsAConversionErrorNamingIt() {
        V1Pod p = new V1Pod().metadata(new V1ObjectMeta().namespace("team").name("w0"));
        assertThatThrownBy(() -> KubeObservations.pod(p)).isInstanceOf(ConversionException.class).hasMessageContaining("team/w0");
    }

    @Test
    void observedStatusIsReadFromTheObjectsJson() {
        var pg = KubeObservations.podGroupStatus(JsonParser.parseString("{\"phase\":\"Inqueue\",\"running\":1}").getAsJsonObject());
        assertThat(pg.phase()).isEqualTo(PodGroupPhase.INQUEUE);
        assertThat(pg.running()).isEqualTo(1);
        assertThat(KubeObservations.queueStatus(JsonParser.parseString("{\"state\":\"Open\",\"running\":2}").getAsJsonObject()).running())
                .isEqualTo(2);
        assertThat(KubeObservations.podGroupStatus(null)).isNull();
    }
}
