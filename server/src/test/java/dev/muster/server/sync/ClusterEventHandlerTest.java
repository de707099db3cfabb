package dev.muster.server.sync;

import static dev.muster.common.kube.KubeObjects.node;
import static dev.muster.common.kube.KubeObjects.pod;
import static dev.muster.common.kube.KubeObjects.podGroup;
import static dev.muster.common.kube.KubeObjects.queue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1Pod;
import org.junit.jupiter.api.Test;

/** The informer-facing translation, driven without an API server. */
class ClusterEventHandlerTest {
    private final RecordingClusterSink sink = new RecordingClusterSink();
    private final ClusterEventHandler handler = new ClusterEventHandler(sink);

    private static V1Pod running(String name, String uid, String node) {
        return pod("ns", name).uid(uid).container("main", "cpu=1,memory=1Gi").node(node).phase("Running").build();
    }

    @Test
    void theSameAddTwiceLeavesOnePod() {
        V1Pod p = running("a", "u1", "n1");
        handler.podUpserted(null, p);
        handler.podUpserted(null, p);
        assertThat(sink.state().pods()).containsOnlyKeys("u1");
        assertThat(handler.skippedObjects()).isZero();
    }

    @Test
    void podGroupsOfEveryApiReachTheSinkAndOfTwoWithOneNameTheOlderIsTheGang() {
        var kube = podGroup(new dev.muster.common.kube.KubePodGroup(), "ns", "train", "{\"schedulingPolicy\": {\"gang\": {\"minCount\": 3}}}");
        kube.getMetadata().creationTimestamp(java.time.OffsetDateTime.parse("2026-01-01T00:00:00Z"));
        var sp = podGroup(new dev.muster.common.kube.CoschedulingPodGroup(), "ns", "train", "{\"minMember\": 5}");
        sp.getMetadata().creationTimestamp(java.time.OffsetDateTime.parse("2026-01-01T00:01:00Z"));
        var other = podGroup(new dev.muster.common.kube.CoschedulingPodGroup(), "ns", "infer", "{\"minMember\": 2}");

        handler.podGroupUpserted(dev.muster.core.model.GangApi.SCHEDULER_PLUGINS, other);
        handler.podGroupUpserted(dev.muster.core.model.GangApi.KUBERNETES, kube);
        handler.podGroupUpserted(dev.muster.core.model.GangApi.SCHEDULER_PLUGINS, sp); // newer, same name: not the gang

        assertThat(sink.state().podGroups().get(new GangKey("ns", "train")).minMember()).isEqualTo(3);
        assertThat(sink.state().podGroups().get(new GangKey("ns", "train")).api()).isEqualTo(dev.muster.core.model.GangApi.KUBERNETES);
        assertThat(sink.state().podGroups().get(new GangKey("ns", "infer")).api()).isEqualTo(dev.muster.core.model.GangApi.SCHEDULER_PLUGINS);

        handler.podGroupDeleted(dev.muster.core.model.GangApi.KUBERNETES, kube); // the other one takes over
        assertThat(sink.state().podGroups().get(new GangKey("ns", "train")).minMember()).isEqualTo(5);
        assertThat(handler.skippedObjects()).isZero();
    }

    @Test
    void podsJoinByLabelOrSchedulingGroupAndAConflictReachesTheSink() {
        handler.podUpserted(null, pod("ns", "a").uid("ua").container("main", "cpu=1,memory=1Gi")
                .label(dev.muster.core.model.GangMembership.POD_GROUP_LABEL, "pg").build());
        handler.podUpserted(null, pod("ns", "b").uid("ub").container("main", "cpu=1,memory=1Gi").schedulingGroup("pg").build());
        handler.podUpserted(null, pod("ns", "c").uid("uc").container("main", "cpu=1,memory=1Gi").annotation("scheduling.k8s.io/group-name", "pg")
                .label(dev.muster.core.model.GangMembership.POD_GROUP_LABEL, "other").build());
        assertThat(sink.state().pods().get("ua").gang()).isEqualTo(new GangKey("ns", "pg"));
        assertThat(sink.state().pods().get("ub").gang()).isEqualTo(new GangKey("ns", "pg"));
        assertThat(sink.state().pods().get("uc").gang()).isNull();
        assertThat(sink.state().pods().get("uc").membershipConflict()).contains("two different groups");
    }

    @Test
    void anUpdateBeforeItsAddAndADeleteOfSomethingNeverSeenAreAbsorbed() {
        handler.podUpserted(running("a", "u1", "n1"), running("a", "u1", "n1")); // update, no add seen
        handler.podDeleted(running("ghost", "u-ghost", "n1")); // never added
        handler.nodeDeleted(node("never").build());
        handler.podGroupDeleted(podGroup("ns", "never", "{}"));
        handler.queueDeleted(queue("never", "{}", null));

        assertThat(sink.state().pods()).containsOnlyKeys("u1");
        assertThat(sink.calls()).contains("deletePod u-ghost", "deleteNode never", "deletePodGroup ns/never", "deleteQueue never");
        assertThat(handler.skippedObjects()).isZero();
    }

    @Test
    void aDeleteThenALateAddOfTheSameObjectIsForwardedInTheOrderReceived() {
        handler.podDeleted(running("a", "u1", "n1"));
        handler.podUpserted(null, running("a", "u1", "n1"));
        assertThat(sink.calls()).containsExactly("deletePod u1", "upsertPod ns/a u1");
    }

    @Test
    void aNodeWhoseAllocatableShrinksUnderRunningPodsIsStillRecorded() {
        handler.nodeUpserted(node("n1").allocatable("cpu=8,memory=32Gi,pods=110").build());
        for (int i = 0; i < 6; i++) {
            handler.podUpserted(null, running("p" + i, "u" + i, "n1"));
        }
        handler.nodeUpserted(node("n1").resourceVersion("2").allocatable("cpu=4,memory=16Gi,pods=110").build());

        assertThat(sink.node("n1").allocatable().cpuMillis()).isEqualTo(4000);
        assertThat(sink.state().pods()).hasSize(6).allSatisfy((uid, p) -> assertThat(p.holdsResources()).isTrue());
        assertThat(handler.skippedObjects()).isZero();
    }

    @Test
    void aPodBoundByAnotherSchedulerOrByHandArrivesBound() {
        handler.podUpserted(null, pod("ns", "other").uid("u-other").schedulerName("default-scheduler")
                .container("main", "cpu=2").node("n1").phase("Pending").build());
        handler.podUpserted(null, pod("ns", "manual").uid("u-manual").container("main", "cpu=1").node("n2").build());

        assertThat(sink.pod("u-other").nodeName()).isEqualTo("n1");
        assertThat(sink.pod("u-other").holdsResources()).isTrue();
        assertThat(sink.pod("u-manual").nodeName()).isEqualTo("n2");
    }

    @Test
    void podsOfAnotherSchedulerAreAccountedButNeverGangMembers() {
        handler.podUpserted(null, pod("ns", "volcano-member").uid("u-v").schedulerName("volcano").gang("pg")
                .container("main", "cpu=2").node("n1").phase("Running").build());
        handler.podUpserted(null, pod("ns", "our-member").uid("u-m").schedulerName("muster").gang("pg")
                .container("main", "cpu=2").build());
        handler.podUpserted(null, pod("ns", "unnamed-member").uid("u-u").gang("pg").container("main", "cpu=2").build());

        assertThat(sink.pod("u-v").gang()).isNull();             // its own scheduler places its gang
        assertThat(sink.pod("u-v").holdsResources()).isTrue();   // ... but the room it takes is counted
        assertThat(sink.pod("u-m").gang()).hasToString("ns/pg");
        assertThat(sink.pod("u-u").gang()).hasToString("ns/pg"); // no schedulerName: treated as ours
    }

    @Test
    void aPodThatCompletesIsUpsertedWithItsTerminalPhaseAndThenDeleted() {
        V1Pod p = running("job", "u1", "n1");
        handler.podUpserted(null, p);
        V1Pod done = running("job", "u1", "n1");
        done.getStatus().phase("Succeeded");
        handler.podUpserted(p, done);

        assertThat(sink.pod("u1").phase()).isEqualTo(PodPhase.SUCCEEDED);
        assertThat(sink.pod("u1").holdsResources()).isFalse();

        handler.podDeleted(done);
        assertThat(sink.state().pods()).isEmpty();
    }

    @Test
    void aPodRecreatedUnderTheSameNameReplacesTheOldUid() {
        V1Pod old = running("worker-0", "u-old", "n1");
        handler.podUpserted(null, old);
        handler.podUpserted(old, pod("ns", "worker-0").uid("u-new").container("main", "cpu=1").build());

        assertThat(sink.state().pods()).containsOnlyKeys("u-new");
        assertThat(sink.calls()).containsSubsequence("deletePod u-old", "upsertPod ns/worker-0 u-new");
    }

    @Test
    void oneBadObjectIsSkippedAndTheNextOneStillArrives() {
        V1Pod bad = pod("ns", "bad").uid("u-bad").container("main", "cpu=1").build();
        bad.getSpec().getContainers().get(0).getResources().putRequestsItem("memory", new Quantity("-5"));
        V1Node badNode = node("n-bad").allocatable("cpu=4").build();
        badNode.getStatus().putAllocatableItem("memory", new Quantity("-1"));

        handler.podUpserted(null, bad);
        handler.podUpserted(null, pod("ns", "nouid").uid(null).build());
        handler.podDeleted(pod("ns", "nouid").uid(null).build());
        handler.podUpserted(null, null);
        handler.nodeUpserted(badNode);
        handler.podGroupUpserted(podGroup("ns", "pg", "{\"minMember\": \"many\"}"));
        handler.queueUpserted(queue("q", "{\"capability\": {\"cpu\": \"lots\"}}", null));
        handler.podUpserted(null, running("good", "u-good", "n1"));

        assertThat(handler.skippedObjects()).isEqualTo(7);
        assertThat(sink.state().pods()).containsOnlyKeys("u-good");
        assertThat(sink.state().nodes()).isEmpty();
        assertThat(sink.state().podGroups()).isEmpty();
        assertThat(sink.state().queues()).isEmpty();
    }

    @Test
    void anInvalidUpdateKeepsTheLastGoodStateOfThatObject() {
        handler.podGroupUpserted(podGroup("ns", "pg", "{\"minMember\": 4}"));
        handler.podGroupUpserted(podGroup("ns", "pg", "{\"minMember\": -4}"));
        assertThat(sink.state().podGroups().get(new GangKey("ns", "pg")).minMember()).isEqualTo(4);
        assertThat(handler.skippedObjects()).isEqualTo(1);
    }

    @Test
    void aSinkExceptionIsCaughtAndCounted() {
        sink.failNextCall(new IllegalStateException("core bug"));
        handler.nodeUpserted(node("n1").allocatable("cpu=4").build());
        handler.nodeUpserted(node("n2").allocatable("cpu=4").build());

        assertThat(handler.skippedObjects()).isEqualTo(1);
        assertThat(sink.state().nodes()).containsOnlyKeys("n2");
    }

    @Test
    void podGroupsAndQueuesAreTranslated() {
        handler.podGroupUpserted(podGroup("team-a", "train", "{\"minMember\": 8, \"queue\": \"research\"}"));
        handler.queueUpserted(queue("research", "{\"weight\": 2, \"capability\": {\"cpu\": 64}}", "{\"state\": \"Closed\"}"));

        assertThat(sink.state().podGroups().get(new GangKey("team-a", "train")).queue()).isEqualTo("research");
        assertThat(sink.state().queues().get("research").state()).isEqualTo(QueueState.CLOSED);
        assertThat(sink.state().queues().get("research").capability())
                .isEqualTo(Resources.builder().set("cpu", 64_000).build());

        handler.podGroupDeleted(podGroup("team-a", "train", null));
        handler.queueDeleted(queue("research", null, null));
        assertThat(sink.state().podGroups()).isEmpty();
        assertThat(sink.state().queues()).isEmpty();
    }
}
