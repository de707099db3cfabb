package dev.muster.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.deploy.Chart.Install;
import org.junit.jupiter.api.Test;

/**
 * The chart installs from Kubernetes 1.25 (Chart.yaml's kubeVersion) with {@code extender.gangMarker=false}; its
 * default, the gang marker policy, needs 1.36. An older cluster gets a message saying so and what to set, not an API
 * server error about an unknown kind halfway through the install.
 */
class ChartKubeVersionTest {
    @Test
    void theDefaultsOnAClusterOlderThan136FailNamingGangMarkerAndWhatToSet() {
        assertThat(Chart.renderError(Install.defaults(), "v1.35.4")).hasValueSatisfying(message -> assertThat(message)
                .contains("extender.gangMarker needs Kubernetes 1.36 or later")
                .contains("the cluster is v1.35.4")
                .contains("set extender.gangMarker=false"));
    }

    @Test
    void withoutTheGangMarkerTheChartRendersForOlderClustersAndWithItFor136() {
        assertThat(Chart.renderError(Install.with("extender.gangMarker", false), "v1.30.0")).isEmpty();
        assertThat(Chart.renderError(Install.defaults(), "v1.36.0")).isEmpty();
    }
}
