package dev.muster.server.sync;

import static dev.muster.common.kube.KubeObjects.pod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.PodConverter;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import org.junit.jupiter.api.Test;

class SlimPodsTest {
    @Test
    void theSlimPodConvertsExactlyLikeTheFullOne() {
        V1Pod full = pod("team-a", "w0").uid("u").resourceVersion("9").gang("train").annotation("volcano.sh/task-spec", "worker")
                .annotation("kubectl.kubernetes.io/last-applied-configuration", "{...huge...}")
                .sidecar("proxy", "cpu=100m").initContainer("init", "cpu=2").container("main", "cpu=1,memory=2Gi")
                .overhead("cpu=50m").podResources("memory=3Gi").node("n1").phase("Running").priority(7).schedulerName("muster").build();
        full.getSpec().getContainers().get(0).image("registry/x:1").addEnvItem(new V1EnvVar().name("A").value("b"));
        full.getStatus().addConditionsItem(new V1PodCondition().type("Ready").status("True"));

        V1Pod slim = SlimPods.slim(full);

        assertThat(PodConverter.toCore(slim)).isEqualTo(PodConverter.toCore(full));
        assertThat(slim.getMetadata().getAnnotations()).containsOnlyKeys("scheduling.k8s.io/group-name", "volcano.sh/task-spec");
        assertThat(slim.getSpec().getContainers().get(0).getImage()).isNull();
        assertThat(slim.getSpec().getContainers().get(0).getEnv()).isNullOrEmpty();
        assertThat(slim.getStatus().getConditions()).isNullOrEmpty();
        assertThat(slim.getSpec().getSchedulerName()).isEqualTo("muster");
    }

    @Test
    void theGangLabelAndSchedulingGroupSurviveOtherLabelsDoNot() {
        V1Pod full = pod("team-a", "w0").uid("u").label("app", "x").label("scheduling.x-k8s.io/pod-group", "pg")
                .schedulingGroup("other").container("main", "cpu=1").build();
        V1Pod slim = SlimPods.slim(full);
        assertThat(PodConverter.toCore(slim)).isEqualTo(PodConverter.toCore(full));
        assertThat(PodConverter.toCore(slim).membershipConflict()).contains("\"other\"").contains("\"pg\"");
        assertThat(slim.getMetadata().getLabels()).containsOnlyKeys("scheduling.x-k8s.io/pod-group");
    }

    @Test
    void nonPodObjectsPassThrough() {
        var other = new io.kubernetes.client.openapi.models.V1Node();
        assertThat(new SlimPods().transform(other)).isSameAs(other);
    }
}
