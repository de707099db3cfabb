package dev.muster.common.kube;

import static dev.muster.common.kube.KubeObjects.pod;
import static dev.muster.common.kube.KubeObjects.res;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Pod;
import java.math.BigDecimal;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PodConverterTest {

    static Stream<Arguments> requests() {
        return Stream.of(
                Arguments.of("one container", pod("ns", "p").container("main", "cpu=500m,memory=1Gi").build(),
                        res("cpu=500m,memory=1Gi,pods=1")),
                Arguments.of("containers are summed", pod("ns", "p").container("a", "cpu=1,memory=1Gi")
                        .container("b", "cpu=250m,memory=512Mi").build(), res("cpu=1250m,memory=1536Mi,pods=1")),
                Arguments.of("a larger init container sets the floor", pod("ns", "p").initContainer("init", "cpu=2,memory=100Mi")
                        .container("main", "cpu=1,memory=1Gi").build(), res("cpu=2,memory=1Gi,pods=1")),
                Arguments.of("a sidecar adds to the sum and to later init steps", pod("ns", "p")
                        .sidecar("proxy", "cpu=100m,memory=64Mi").initContainer("migrate", "cpu=1,memory=64Mi")
                        .container("main", "cpu=500m,memory=1Gi").build(), res("cpu=1100m,memory=1088Mi,pods=1")),
                Arguments.of("overhead is added", pod("ns", "p").container("main", "cpu=1").overhead("cpu=250m,memory=120Mi").build(),
                        res("cpu=1250m,memory=120Mi,pods=1")),
                Arguments.of("pod-level requests override what they name", pod("ns", "p").container("a", "cpu=1,memory=1Gi")
                        .container("b", "cpu=1,memory=1Gi").podResources("cpu=3").build(), res("cpu=3,memory=2Gi,pods=1")),
                Arguments.of("no requests still counts one pod", pod("ns", "p").container("main", "").build(), res("pods=1")),
                Arguments.of("extended resources", pod("ns", "p").container("main", "cpu=4,nvidia.com/gpu=2").build(),
                        res("cpu=4,nvidia.com/gpu=2,pods=1")),
                Arguments.of("decimal and binary suffixes", pod("ns", "p").container("main", "memory=1.5Gi,ephemeral-storage=2G").build(),
                        res("memory=1610612736,ephemeral-storage=2000000000,pods=1")),
                Arguments.of("no spec at all", new V1Pod().metadata(pod("ns", "p").build().getMetadata()), res("pods=1")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void effectiveRequest(String name, V1Pod pod, Resources expected) {
        assertThat(PodConverter.toCore(pod).request()).isEqualTo(expected);
    }

    @Test
    void identityPlacementPhaseAndPriority() {
        Pod p = PodConverter.toCore(pod("team-a", "worker-0").uid("u-1").resourceVersion("42").container("main", "cpu=1")
                .node("n7").phase("Running").priority(1000).build());
        assertThat(p.id().uid()).isEqualTo("u-1");
        assertThat(p.id().namespace()).isEqualTo("team-a");
        assertThat(p.id().name()).isEqualTo("worker-0");
        assertThat(p.resourceVersion()).isEqualTo("42");
        assertThat(p.nodeName()).isEqualTo("n7");
        assertThat(p.phase()).isEqualTo(PodPhase.RUNNING);
        assertThat(p.priority()).isEqualTo(1000);
        assertThat(p.gang()).isNull();
        assertThat(p.task()).isEmpty();
    }

    static Stream<Arguments> gangs() {
        return Stream.of(
                Arguments.of("kubernetes group-name annotation", pod("ns", "p").gang("pg1").build(), new GangKey("ns", "pg1"), ""),
                Arguments.of("volcano group-name annotation", pod("ns", "p").annotation("scheduling.volcano.sh/group-name", "pg2").build(),
                        new GangKey("ns", "pg2"), ""),
                Arguments.of("task from volcano.sh/task-spec", pod("ns", "p").gang("pg1").annotation("volcano.sh/task-spec", "worker").build(),
                        new GangKey("ns", "pg1"), "worker"),
                Arguments.of("no annotation: a single pod", pod("ns", "p").build(), null, ""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("gangs")
    void gangAndTask(String name, V1Pod pod, GangKey gang, String task) {
        Pod p = PodConverter.toCore(pod);
        assertThat(p.gang()).isEqualTo(gang);
        assertThat(p.task()).isEqualTo(task);
    }

    static Stream<Arguments> phases() {
        return Stream.of(
                Arguments.of("Pending", PodPhase.PENDING), Arguments.of("Running", PodPhase.RUNNING),
                Arguments.of("Succeeded", PodPhase.SUCCEEDED), Arguments.of("Failed", PodPhase.FAILED),
                Arguments.of("Unknown", PodPhase.UNKNOWN), Arguments.of(null, PodPhase.PENDING));
    }

    @ParameterizedTest(name = "phase {0}")
    @MethodSource("phases")
    void phase(String wire, PodPhase expected) {
        assertThat(PodConverter.toCore(pod("ns", "p").node("n1").phase(wire).build()).phase()).isEqualTo(expected);
    }

    @Test
    void emptyNodeNameIsUnbound() {
        assertThat(PodConverter.toCore(pod("ns", "p").node("").build()).isBound()).isFalse();
    }

    static Stream<Arguments> invalid() {
        V1Pod negative = pod("ns", "bad").container("main", "cpu=1").build();
        negative.getSpec().getContainers().get(0).getResources().putRequestsItem("memory", new Quantity("-1Gi"));
        V1Pod huge = pod("ns", "huge").container("main", "").build();
        huge.getSpec().getContainers().get(0).getResources()
                .putRequestsItem("cpu", new Quantity(new BigDecimal("1e100"), Quantity.Format.DECIMAL_EXPONENT));
        return Stream.of(
                Arguments.of("negative request names pod, container and resource", negative,
                        "pod ns/bad container \"main\" requests: memory"),
                Arguments.of("absurd exponent is rejected, not saturated silently", huge, "pod ns/huge container \"main\" requests: cpu"),
                Arguments.of("missing uid", pod("ns", "nouid").uid(null).build(), "pod ns/nouid has no metadata.uid"),
                Arguments.of("missing name", new V1Pod(), "pod without metadata.name"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalid")
    void invalidPodsRaiseConversionExceptionNamingTheProblem(String name, V1Pod pod, String message) {
        assertThatThrownBy(() -> PodConverter.toCore(pod)).isInstanceOf(ConversionException.class).hasMessageContaining(message);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("preemptionTerms")
    void thePreemptionTermsAreReadFromTheSpec(String name, String policy, Long grace, boolean never, long expectedGrace) {
        V1Pod v1 = pod("ns", "p").container("main", "cpu=1").build();
        v1.getSpec().preemptionPolicy(policy).terminationGracePeriodSeconds(grace);
        Pod converted = PodConverter.toCore(v1);
        assertThat(converted.neverPreempts()).isEqualTo(never);
        assertThat(converted.graceSeconds()).isEqualTo(expectedGrace);
    }

    static Stream<Arguments> preemptionTerms() {
        return Stream.of(
                Arguments.of("nothing said: may preempt, Kubernetes' default grace", null, null, false, Pod.DEFAULT_GRACE_SECONDS),
                Arguments.of("PreemptLowerPriority may preempt", "PreemptLowerPriority", 60L, false, 60L),
                Arguments.of("Never never preempts", "Never", 5L, true, 5L),
                Arguments.of("a zero grace period stays zero", null, 0L, false, 0L),
                Arguments.of("a negative grace period is one second, as the API server makes it", "Never", -3L, true, 1L));
    }
}
