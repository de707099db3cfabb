package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangApi;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Discovery over HTTP: which gang APIs are served, at which version, with or without podgroups/status. */
class GangApiDiscoveryTest {
    private MockKubeApi api;
    private GangApiDiscovery discovery;

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
        ApiClient client = new ClientBuilder().setBasePath(api.url()).build();
        discovery = new GangApiDiscovery(client);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private void groups(String json) {
        api.server().expect().get().withPath("/apis/").andReturn(200, json).always();
    }

    private void resources(String groupVersion, String... names) {
        StringBuilder sb = new StringBuilder("{\"kind\":\"APIResourceList\",\"groupVersion\":\"" + groupVersion + "\",\"resources\":[");
        for (int i = 0; i < names.length; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"name\":\"").append(names[i]).append("\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"X\",\"verbs\":[\"get\"]}");
        }
        api.server().expect().get().withPath("/apis/" + groupVersion).andReturn(200, sb.append("]}").toString()).always();
    }

    private static String group(String name, String... versions) {
        StringBuilder sb = new StringBuilder("{\"name\":\"" + name + "\",\"versions\":[");
        for (int i = 0; i < versions.length; i++) {
            sb.append(i == 0 ? "" : ",").append("{\"groupVersion\":\"").append(name).append('/').append(versions[i])
                    .append("\",\"version\":\"").append(versions[i]).append("\"}");
        }
        return sb.append("]}").toString();
    }

    @Test
    void findsTheServedVersionsAndSkipsAGroupWithoutPodGroups() {
        groups("{\"kind\":\"APIGroupList\",\"groups\":[" + group("scheduling.k8s.io", "v1", "v1alpha2") + ","
                + group("scheduling.volcano.sh", "v1beta1") + "]}");
        resources("scheduling.k8s.io/v1alpha2", "podgroups", "podgroups/status", "workloads");
        resources("scheduling.volcano.sh/v1beta1", "podgroups", "queues", "queues/status");

        GangApiDiscovery.Result r = discovery.discover();

        assertThat(r.failure()).isNull();
        assertThat(r.served()).containsOnlyKeys(GangApi.KUBERNETES, GangApi.VOLCANO);
        assertThat(r.served().get(GangApi.KUBERNETES)).isEqualTo(new GangApiDiscovery.Served(GangApi.KUBERNETES, "v1alpha2", true, java.util.Set.of("workloads")));
        assertThat(r.served().get(GangApi.VOLCANO).statusSubresource()).isFalse();
        assertThat(r.served().get(GangApi.VOLCANO).serves("queues")).isTrue();
        assertThat(discovery.served(GangApi.SCHEDULER_PLUGINS)).isNull();
    }

    @Test
    void theNewerKubernetesVersionWinsWhenBothAreServed() {
        groups("{\"kind\":\"APIGroupList\",\"groups\":[" + group("scheduling.k8s.io", "v1", "v1beta1", "v1alpha2") + ","
                + group("scheduling.x-k8s.io", "v1alpha1") + "]}");
        resources("scheduling.k8s.io/v1beta1", "podgroups", "podgroups/status");
        resources("scheduling.k8s.io/v1alpha2", "podgroups", "podgroups/status");
        resources("scheduling.x-k8s.io/v1alpha1", "podgroups", "podgroups/status");

        GangApiDiscovery.Result r = discovery.discover();

        assertThat(r.served().get(GangApi.KUBERNETES).apiVersion()).isEqualTo("scheduling.k8s.io/v1beta1");
        assertThat(r.served().get(GangApi.SCHEDULER_PLUGINS).apiVersion()).isEqualTo("scheduling.x-k8s.io/v1alpha1");
    }

    @Test
    void aFailedDiscoveryKeepsTheLastAnswerAndSaysWhy() {
        api.server().expect().get().withPath("/apis/")
                .andReturn(200, "{\"kind\":\"APIGroupList\",\"groups\":[" + group("scheduling.x-k8s.io", "v1alpha1") + "]}").once();
        api.server().expect().get().withPath("/apis/").andReturn(503, "{}").always();
        resources("scheduling.x-k8s.io/v1alpha1", "podgroups", "podgroups/status");
        assertThat(discovery.discover().served()).containsOnlyKeys(GangApi.SCHEDULER_PLUGINS);

        GangApiDiscovery.Result r = discovery.discover();

        assertThat(r.failure()).isEqualTo("HTTP 503");
        assertThat(discovery.served(GangApi.SCHEDULER_PLUGINS)).isNotNull();
    }

    @Test
    void anAnswerThatIsNotAGroupListIsAFailureThatSaysSoAndKeepsTheLastAnswer() {
        api.server().expect().get().withPath("/apis/")
                .andReturn(200, "{\"kind\":\"APIGroupList\",\"groups\":[" + group("scheduling.x-k8s.io", "v1alpha1") + "]}").once();
        api.server().expect().get().withPath("/apis/").andReturn(200, "{\"groups\":[{\"name\":7}]}").once();
        api.server().expect().get().withPath("/apis/").andReturn(200, "[\"groups\"]").once();
        api.server().expect().get().withPath("/apis/").andReturn(200, "{\"kind\":\"Status\"}").once();
        resources("scheduling.x-k8s.io/v1alpha1", "podgroups");
        assertThat(discovery.discover().served()).containsOnlyKeys(GangApi.SCHEDULER_PLUGINS);

        GangApiDiscovery.Result wrongType = discovery.discover();
        GangApiDiscovery.Result notAnObject = discovery.discover();
        GangApiDiscovery.Result noGroups = discovery.discover();

        assertThat(wrongType.failure()).contains("groups[].name: expected a string, found NUMBER");
        assertThat(notAnObject.failure()).contains("discovery answer is not the expected JSON");
        assertThat(noGroups.failure()).contains("not an APIGroupList: it has no groups");
        assertThat(noGroups.served()).containsOnlyKeys(GangApi.SCHEDULER_PLUGINS);
        assertThat(discovery.served(GangApi.SCHEDULER_PLUGINS).statusSubresource()).isFalse();
    }

    @Test
    void groupsWithoutVersionsAndUnknownFieldsAreRead() {
        groups("{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[{\"name\":\"apps\",\"versions\":null},"
                + "{\"name\":\"scheduling.volcano.sh\",\"versions\":[{\"groupVersion\":\"scheduling.volcano.sh/v1beta1\",\"version\":\"v1beta1\"}],"
                + "\"preferredVersion\":{\"groupVersion\":\"scheduling.volcano.sh/v1beta1\",\"version\":\"v1beta1\"}}]}");
        resources("scheduling.volcano.sh/v1beta1", "podgroups", "podgroups/status", "queues");

        GangApiDiscovery.Result r = discovery.discover();

        assertThat(r.failure()).isNull();
        assertThat(r.served()).containsOnlyKeys(GangApi.VOLCANO);
        assertThat(r.served().get(GangApi.VOLCANO).statusSubresource()).isTrue();
    }
}
