package dev.muster.server.sync;

import static dev.muster.common.kube.KubeObjects.node;
import static dev.muster.common.kube.KubeObjects.pod;
import static dev.muster.common.kube.KubeObjects.podGroup;
import static dev.muster.common.kube.KubeObjects.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.common.kube.VolcanoPodGroup;
import dev.muster.common.kube.VolcanoQueue;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Restart safety: a process that saw a long history and a fresh process that only lists the final state hand the
 * core the same picture. The fake "API server" here is a map of current objects, mutated alongside the events.
 */
class RestartTest {
    private final Map<String, V1Node> nodes = new LinkedHashMap<>();
    private final Map<String, V1Pod> pods = new LinkedHashMap<>();
    private final Map<String, VolcanoPodGroup> podGroups = new LinkedHashMap<>();
    private final Map<String, VolcanoQueue> queues = new LinkedHashMap<>();

    private final RecordingClusterSink liveSink = new RecordingClusterSink();
    private final ClusterEventHandler live = new ClusterEventHandler(liveSink);

    private void putNode(V1Node n) {
        live.nodeUpserted(n);
        nodes.put(n.getMetadata().getName(), n);
    }

    private void putPod(V1Pod p) {
        V1Pod old = pods.put(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName(), p);
        live.podUpserted(old, p);
    }

    private void deletePod(String key) {
        live.podDeleted(pods.remove(key));
    }

    @Test
    void aFreshSinkFedTheListedStateEqualsTheSinkThatSawTheHistory() {
        putNode(node("n1").allocatable("cpu=8,memory=32Gi").build());
        putNode(node("n2").allocatable("cpu=8,memory=32Gi").build());
        VolcanoQueue q = queue("research", "{\"weight\": 2}", "{\"state\": \"Open\"}");
        live.queueUpserted(q);
        queues.put("research", q);
        VolcanoPodGroup pg = podGroup("team-a", "train", "{\"minMember\": 2, \"queue\": \"research\"}");
        live.podGroupUpserted(pg);
        podGroups.put("team-a/train", pg);
        for (int i = 0; i < 4; i++) {
            putPod(pod("team-a", "w" + i).uid("w" + i).gang("train").container("main", "cpu=2").build());
        }
        for (int i = 0; i < 4; i++) {
            putPod(pod("team-a", "w" + i).uid("w" + i).resourceVersion("2").gang("train").container("main", "cpu=2").node(i % 2 == 0 ? "n1" : "n2").build());
        }
        putPod(pod("team-a", "w3").uid("w3").resourceVersion("3").gang("train").container("main", "cpu=2").node("n2").phase("Failed").build());
        deletePod("team-a/w2");
        putPod(pod("team-a", "w1").uid("w1-recreated").gang("train").container("main", "cpu=2").build()); // same name, new pod
        putNode(node("n2").resourceVersion("2").allocatable("cpu=2,memory=8Gi").unschedulable(true).build()); // shrank, cordoned
        putPod(pod("other", "by-hand").uid("h1").container("main", "cpu=1").node("n1").phase("Running").build());
        live.podDeleted(pod("team-a", "unknown").uid("u-unknown").build()); // a stale delete

        RecordingClusterSink freshSink = new RecordingClusterSink();
        ClusterEventHandler fresh = new ClusterEventHandler(freshSink);
        List<Runnable> listing = new ArrayList<>();
        queues.values().forEach(x -> listing.add(() -> fresh.queueUpserted(x)));
        pods.values().forEach(x -> listing.add(() -> fresh.podUpserted(null, x)));
        nodes.values().forEach(x -> listing.add(() -> fresh.nodeUpserted(x)));
        podGroups.values().forEach(x -> listing.add(() -> fresh.podGroupUpserted(x)));
        listing.forEach(Runnable::run);

        assertThat(freshSink.state()).isEqualTo(liveSink.state());
        assertThat(freshSink.state().pods()).containsOnlyKeys("w0", "w1-recreated", "w3", "h1");
    }
}
