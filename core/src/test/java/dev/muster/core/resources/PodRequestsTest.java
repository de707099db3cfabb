package dev.muster.core.resources;

import static dev.muster.core.testing.Fixtures.res;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.resources.PodRequests.Container;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The cases kube-scheduler's own tests cover for resource.PodRequests. */
class PodRequestsTest {

    static Container app(String cpu, String mem) {
        return Container.of(res(cpu, mem));
    }

    static Container init(String cpu, String mem) {
        return new Container(res(cpu, mem), false);
    }

    static Container sidecar(String cpu, String mem) {
        return new Container(res(cpu, mem), true);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("no containers counts one pod only", List.of(), List.of(), null, null, res(null, null)),
                Arguments.of("app containers add up", List.of(app("1", "1Gi"), app("500m", "512Mi")), List.of(), null, null, res("1500m", "1536Mi")),
                Arguments.of("big init step dominates", List.of(app("1", "1Gi")), List.of(init("4", "512Mi")), null, null, res("4", "1Gi")),
                Arguments.of("init steps take the max per resource", List.of(app("1", "1Gi")), List.of(init("2", "100Mi"), init("500m", "4Gi")), null, null, res("2", "4Gi")),
                Arguments.of("sidecar adds to the sum", List.of(app("1", "1Gi")), List.of(sidecar("500m", "256Mi")), null, null, res("1500m", "1280Mi")),
                Arguments.of("init after sidecar needs sidecar too", List.of(app("1", "1Gi")),
                        List.of(sidecar("1", "1Gi"), init("3", "1Gi")), null, null, res("4", "2Gi")),
                Arguments.of("init before sidecar does not need it", List.of(app("1", "1Gi")),
                        List.of(init("3", "1Gi"), sidecar("1", "1Gi")), null, null, res("3", "2Gi")),
                Arguments.of("overhead is added", List.of(app("1", "1Gi")), List.of(), null, res("250m", "128Mi"), res("1250m", "1152Mi")),
                Arguments.of("overhead added after init max", List.of(app("1", "1Gi")), List.of(init("2", "1Gi")), null, res("100m", null), res("2100m", "1Gi")),
                Arguments.of("pod-level requests replace aggregate", List.of(app("1", "1Gi"), app("1", "1Gi")), List.of(), res("3", null), null, res("3", "2Gi")),
                Arguments.of("extended resources add", List.of(Container.of(res("1", "1Gi", "nvidia.com/gpu", "2")), Container.of(res(null, null, "nvidia.com/gpu", "1"))),
                        List.of(), null, null, res("1", "1Gi", "nvidia.com/gpu", "3")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void effectiveRequest(String name, List<Container> containers, List<Container> inits, Resources podLevel, Resources overhead,
                          Resources expectedWithoutPods) {
        Resources expected = expectedWithoutPods.with(ResourceNames.PODS_INDEX, 1);
        assertThat(PodRequests.effective(containers, inits, podLevel, overhead)).isEqualTo(expected);
    }
}
