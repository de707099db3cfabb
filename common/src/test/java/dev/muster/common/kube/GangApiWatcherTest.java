package dev.muster.common.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangApi;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every gang API is discovery-gated: one that is not served is skipped (no informer, so no list errors and nothing
 * for the first sync to wait for), and one that appears later gets its informers — Volcano's PodGroups with its Queues,
 * Kubernetes' PodGroups with its Workloads.
 */
class GangApiWatcherTest {
    private MockKubeApi api;
    private ApiClient client;
    private SharedInformerFactory factory;
    private GangApiWatcher watcher;
    private final List<String> informers = Collections.synchronizedList(new ArrayList<>());

    @BeforeEach
    void start() {
        api = MockKubeApi.expectations();
        client = new ClientBuilder().setBasePath(api.url()).build();
        factory = new SharedInformerFactory(client);
        watcher = new GangApiWatcher(client, factory, 0, new GangApiDiscovery(client), (a, source, informer) -> informers.add(source),
                (source, informer) -> informers.add(source), (source, informer) -> informers.add(source), (resource, t) -> { },
                Duration.ofHours(1), "test");
    }

    @AfterEach
    void stop() {
        watcher.close();
        factory.stopAllRegisteredInformers();
        api.close();
    }

    private void serve(String groupsJson, Map<String, List<String>> resources) {
        api.server().expect().get().withPath("/apis/").andReturn(200, "{\"kind\":\"APIGroupList\",\"groups\":[" + groupsJson + "]}").once();
        resources.forEach((gv, names) -> {
            StringBuilder sb = new StringBuilder("{\"kind\":\"APIResourceList\",\"groupVersion\":\"" + gv + "\",\"resources\":[");
            for (int i = 0; i < names.size(); i++) {
                sb.append(i == 0 ? "" : ",").append("{\"name\":\"").append(names.get(i))
                        .append("\",\"singularName\":\"\",\"namespaced\":true,\"kind\":\"X\",\"verbs\":[\"get\"]}");
            }
            api.server().expect().get().withPath("/apis/" + gv).andReturn(200, sb.append("]}").toString()).once();
        });
    }

    private static String group(String name, String version) {
        return "{\"name\":\"" + name + "\",\"versions\":[{\"groupVersion\":\"" + name + "/" + version + "\",\"version\":\"" + version + "\"}]}";
    }

    @Test
    void volcanoNotServedIsSkippedAndPickedUpWhenItsCrdsAppear() {
        serve(group("scheduling.k8s.io", "v1alpha2"), Map.of("scheduling.k8s.io/v1alpha2", List.of("podgroups", "podgroups/status", "workloads")));
        List<InitialSync.Source> first = watcher.registerServed();
        assertThat(first).extracting(InitialSync.Source::name)
                .containsExactlyInAnyOrder("podgroups.scheduling.k8s.io", "workloads.scheduling.k8s.io");
        assertThat(watcher.watched()).containsOnlyKeys(GangApi.KUBERNETES);

        serve(group("scheduling.k8s.io", "v1alpha2") + "," + group("scheduling.volcano.sh", "v1beta1"), Map.of(
                "scheduling.k8s.io/v1alpha2", List.of("podgroups", "podgroups/status", "workloads"),
                "scheduling.volcano.sh/v1beta1", List.of("podgroups", "queues", "queues/status")));
        watcher.recheck();
        assertThat(watcher.watched()).containsOnlyKeys(GangApi.KUBERNETES, GangApi.VOLCANO);
        assertThat(informers).containsExactlyInAnyOrder("podgroups.scheduling.k8s.io", "workloads.scheduling.k8s.io",
                "podgroups.scheduling.volcano.sh", "queues.scheduling.volcano.sh");
    }

    @Test
    void whenTheFirstDiscoveryFailsVolcanosCrdsAreWatchedAsTheChartInstallsThem() {
        api.server().expect().get().withPath("/apis/").andReturn(503, "{}").once();
        assertThat(watcher.registerServed()).extracting(InitialSync.Source::name)
                .containsExactlyInAnyOrder("podgroups.scheduling.volcano.sh", "queues.scheduling.volcano.sh");
    }
}
