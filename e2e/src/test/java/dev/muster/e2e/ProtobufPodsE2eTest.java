package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.stream.JsonReader;
import dev.muster.common.kube.SlimListerWatcher;
import dev.muster.common.kube.SlimPodJson;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.util.CallGeneratorParams;
import io.kubernetes.client.util.Watch;
import io.kubernetes.client.util.Watchable;
import java.util.List;
import java.util.Objects;
import okhttp3.Request;
import okhttp3.Response;
import org.junit.jupiter.api.Test;

/**
 * The informers' pods come from the real API server as protobuf (the API server then encodes each pod event
 * once for kube-scheduler and Muster), and decode to what the same objects give in JSON. The rest of the e2e suite
 * proves the extender and controller schedule and write status on top of them.
 */
class ProtobufPodsE2eTest extends RealClusterTest {
    private static final String PROTOBUF = "application/vnd.kubernetes.protobuf";

    private Response get(ApiClient client, String pathAndQuery, String accept) throws Exception {
        Request request = new Request.Builder().url(client.getBasePath() + pathAndQuery).header("Accept", accept)
                .header("Authorization", "Bearer " + c.cp.adminToken()).build();
        return client.getHttpClient().newCall(request).execute();
    }

    private List<V1Pod> inNamespace(List<V1Pod> pods) {
        return pods.stream().filter(p -> ns.equals(p.getMetadata().getNamespace()))
                .sorted(java.util.Comparator.comparing(p -> p.getMetadata().getName())).toList();
    }

    @Test
    void podsAreListedAndWatchedAsProtobufAndDecodeToWhatJsonGives() throws Exception {
        // nobody schedules these (unknown scheduler): they stay as created
        c.admin.pod(ns, "proto-0", "train", "500m", "1Gi", "nobody", null);
        c.admin.pod(ns, "proto-1", null, "250m", "64Mi", "nobody", null);
        ApiClient client = c.cp.adminClient();

        // what SlimListerWatcher asks for, the API server answers in protobuf
        try (Response list = get(client, "/api/v1/pods?limit=1", PROTOBUF + ", application/json");
                Response watch = get(client, "/api/v1/pods?watch=true&timeoutSeconds=1", PROTOBUF + ";stream=watch, application/json")) {
            assertThat(list.header("Content-Type")).isEqualTo(PROTOBUF);
            assertThat(watch.header("Content-Type")).isEqualTo(PROTOBUF + ";stream=watch");
        }

        V1PodList fromProto = SlimListerWatcher.pods(client).list(new CallGeneratorParams(false, null, null));
        String rv = fromProto.getMetadata().getResourceVersion();
        V1PodList fromJson;
        try (Response json = get(client, "/api/v1/pods?resourceVersion=" + rv + "&resourceVersionMatch=Exact", "application/json")) {
            assertThat(json.code()).isEqualTo(200);
            fromJson = SlimPodJson.readList(new JsonReader(Objects.requireNonNull(json.body()).charStream()));
        }
        assertThat(inNamespace(fromProto.getItems())).hasSize(2).isEqualTo(inNamespace(fromJson.getItems()));
        V1Pod member = inNamespace(fromProto.getItems()).getFirst();
        assertThat(member.getMetadata().getAnnotations()).containsEntry("scheduling.k8s.io/group-name", "train");
        assertThat(member.getSpec().getContainers().getFirst().getResources().getRequests().get("cpu").toSuffixedString()).isEqualTo("500m");

        // a change after the list arrives as a protobuf watch event, decoded with the field Muster reads
        c.admin.phase(ns, "proto-1", "Running");
        try (Watchable<V1Pod> events = SlimListerWatcher.pods(client).watch(new CallGeneratorParams(true, rv, 30))) {
            boolean seen = false;
            while (!seen && events.hasNext()) {
                Watch.Response<V1Pod> e = events.next();
                seen = "MODIFIED".equals(e.type) && ns.equals(e.object.getMetadata().getNamespace())
                        && "proto-1".equals(e.object.getMetadata().getName()) && "Running".equals(e.object.getStatus().getPhase());
            }
            assertThat(seen).as("proto-1's phase change in the watch").isTrue();
        }
    }
}
