package dev.muster.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.proto.v1.ExtenderGrpc;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.WhatWouldItTakeRequest;
import dev.muster.proto.v1.WhatWouldItTakeResponse;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.util.PatchUtils;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A preemptor takes room only where kube-scheduler would place it, on hollow kubelets with kube-controller-manager.
 * Two low-priority gangs fill the four 1-cpu nodes: {@code low-a} (started first) on hollow-0 and hollow-1, {@code low-b}
 * on hollow-2 and hollow-3. Without constraints a priority-1000 gang takes {@code low-b}, the gang started last; with a
 * node selector, a required node affinity or an untolerated taint that keeps it on hollow-0 / hollow-1 it takes
 * {@code low-a} and runs there; so does one whose port of the node ({@code hostPort}) is taken on hollow-2 and hollow-3;
 * a gated one takes nothing. Whoever calls the verbs, a pod is never passed or bound onto a
 * node its own node selector excludes.
 */
class NodeConstraintsE2eTest extends ControllersClusterTest {
    static final String LOW = "muster-e2e-low";
    static final String HIGH = "muster-e2e-high";
    static final String HOSTNAME = "kubernetes.io/hostname";
    static final String NODE_0 = ControllersCluster.NODE_PREFIX + "0";
    static final String NODE_1 = ControllersCluster.NODE_PREFIX + "1";
    static final String TAINT = "muster-e2e/dedicated";

    @BeforeEach
    void priorityClasses() {
        c.workloads.priorityClass(LOW, 10, "PreemptLowerPriority");
        c.workloads.priorityClass(HIGH, 1000, "PreemptLowerPriority");
    }

    /** A Job of {@code n} × 250m pods joined to a PodGroup of minMember {@code n}, with {@code spec} added to its pods' spec. */
    private void gangJob(String name, int n, String priorityClass, Workloads.PodTemplate template, Map<String, Object> spec) {
        c.admin.podGroup(ns, name, n, queue, Map.of());
        c.workloads.indexedJob(ns, name, n, n, template, false, spec);
    }

    private static Workloads.PodTemplate pods(String group, String priorityClass) {
        return new Workloads.PodTemplate(group, "250m", "64Mi", 1, priorityClass);
    }

    private static Map<String, Object> onNodes(String... nodes) {
        return Map.of("affinity", Map.of("nodeAffinity", Map.of("requiredDuringSchedulingIgnoredDuringExecution",
                Map.of("nodeSelectorTerms", List.of(Map.of("matchExpressions", List.of(Map.of("key", HOSTNAME, "operator", "In",
                        "values", List.of(nodes)))))))));
    }

    /** low-a on hollow-0 and hollow-1, then low-b on hollow-2 and hollow-3: the cluster is full. */
    private Map<String, Set<String>> fill() {
        gangJob("low-a", 8, LOW, pods("low-a", LOW), onNodes(NODE_0, NODE_1));
        c.awaitRunning(ns, "job=low-a", 8);
        gangJob("low-b", 8, LOW, pods("low-b", LOW), onNodes(ControllersCluster.NODE_PREFIX + "2", ControllersCluster.NODE_PREFIX + "3"));
        c.awaitRunning(ns, "job=low-b", 8);
        return Map.of("low-a", c.uids(ns, "job=low-a"), "low-b", c.uids(ns, "job=low-b"));
    }

    private Set<String> nodesOf(String selector) {
        return c.admin.pods(ns, selector).stream().filter(ControllersCluster::holdsRoom).map(p -> p.getSpec().getNodeName())
                .collect(Collectors.toSet());
    }

    /** The gang that cannot go on hollow-2 / hollow-3 takes low-a (not low-b, which started last) and runs where it may. */
    private void takesLowAAndRunsOn(Map<String, Set<String>> low, Set<String> allowed) {
        c.awaitRunning(ns, "job=big", 4);
        assertThat(c.survivors(ns, low.get("low-b"))).as("low-b, on nodes big may not use, untouched").hasSize(8);
        assertThat(c.survivors(ns, low.get("low-a"))).as("low-a evicted whole").isEmpty();
        assertThat(allowed).containsAll(nodesOf("job=big"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"nodeSelector", "required node affinity"})
    void aPreemptorPinnedToANodeEvictsOnlyThereAndRunsThere(String how) {
        Map<String, Set<String>> low = fill();
        gangJob("big", 4, HIGH, pods("big", HIGH), how.equals("nodeSelector") ? Map.of("nodeSelector", Map.of(HOSTNAME, NODE_0))
                : onNodes(NODE_0));
        takesLowAAndRunsOn(low, Set.of(NODE_0));
    }

    @Test
    void aPreemptorPinnedToANodeWhoseVictimsAreNotEnoughEvictsNothing() {
        Map<String, Set<String>> low = fill();
        gangJob("big", 5, HIGH, pods("big", HIGH), Map.of("nodeSelector", Map.of(HOSTNAME, NODE_0))); // 5 × 250m on a 1-cpu node
        Awaitility.await("the reason says it preempts nothing").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> Kube.conditionLines(c.admin.podGroupObject(ns, "big")).stream().anyMatch(s -> s.contains("preempts nothing")));
        Awaitility.await("nothing evicted").during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.survivors(ns, low.get("low-a")).size() == 8 && c.survivors(ns, low.get("low-b")).size() == 8);
    }

    @Test
    void anUntoleratedTaintKeepsThePreemptorsEvictionsOffTheTaintedNodes() {
        Map<String, Set<String>> low = fill();
        List<String> tainted = List.of(ControllersCluster.NODE_PREFIX + "2", ControllersCluster.NODE_PREFIX + "3");
        try {
            for (String n : tainted) {
                taint(n, "[{\"key\":\"" + TAINT + "\",\"value\":\"x\",\"effect\":\"NoSchedule\"}]");
            }
            gangJob("big", 4, HIGH, pods("big", HIGH), Map.of());
            takesLowAAndRunsOn(low, Set.of(NODE_0, NODE_1));
        } finally {
            for (String n : tainted) {
                taint(n, "null");
            }
        }
    }

    /**
     * kube-scheduler's NodePorts filter: big's pods ask for a port of the node that a priority-1000 pod already holds on
     * hollow-2 and hollow-3, so evicting low-b (started last) would free room big can never use there; it takes low-a.
     */
    @Test
    void aPreemptorWhoseHostPortIsTakenOnSomeNodesEvictsOnlyWhereItIsFree() {
        Map<String, Set<String>> low = fill();
        for (String n : List.of(ControllersCluster.NODE_PREFIX + "2", ControllersCluster.NODE_PREFIX + "3")) {
            V1Pod holder = new V1Pod().metadata(new V1ObjectMeta().name("port-" + n).labels(Map.of("app", "port")))
                    .spec(new V1PodSpec().nodeName(n).priorityClassName(HIGH).overhead(null).containers(List.of(new V1Container().name("main")
                            .image("registry.example/job:1").ports(List.of(new V1ContainerPort().containerPort(9000).hostPort(9000))))));
            Kube.call("create " + holder.getMetadata().getName(), () -> c.admin.core().createNamespacedPod(ns, holder).execute());
        }
        c.awaitRunning(ns, "app=port", 2);
        gangJob("big", 2, HIGH, pods("big", HIGH), Map.of("containers", List.of(Map.of("name", "main", "image", "registry.example/job:1",
                "resources", Map.of("requests", Map.of("cpu", "250m", "memory", "64Mi")),
                "ports", List.of(Map.of("containerPort", 9000, "hostPort", 9000))))));
        c.awaitRunning(ns, "job=big", 2);
        assertThat(c.survivors(ns, low.get("low-b"))).as("low-b, where the port is taken, untouched").hasSize(8);
        assertThat(c.survivors(ns, low.get("low-a"))).as("low-a evicted whole").isEmpty();
        assertThat(Set.of(NODE_0, NODE_1)).containsAll(nodesOf("job=big"));
    }

    /** Sets (or with "null" removes) the node's taints. */
    private void taint(String node, String taintsJson) {
        Kube.call("taint " + node, () -> PatchUtils.patch(Object.class, () -> c.admin.core().patchNode(node,
                new V1Patch("{\"spec\":{\"taints\":" + taintsJson + "}}")).buildCall(null), V1Patch.PATCH_FORMAT_STRATEGIC_MERGE_PATCH,
                c.cp.adminClient()));
    }

    @Test
    void aGatedGangEvictsNothingAndTheDryRunSaysWhy() throws InterruptedException {
        Map<String, Set<String>> low = fill();
        gangJob("big", 4, HIGH, pods("big", HIGH).gated("example.com/hold"), Map.of());
        Awaitility.await("nothing evicted").during(Duration.ofSeconds(15)).atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(250))
                .until(() -> c.survivors(ns, low.get("low-a")).size() == 8 && c.survivors(ns, low.get("low-b")).size() == 8);
        ManagedChannel channel = Grpc.newChannelBuilderForAddress("127.0.0.1", c.muster.extenderGrpcPort(), InsecureChannelCredentials.create()).build();
        try {
            WhatWouldItTakeResponse advice = ExtenderGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS).whatWouldItTake(
                    WhatWouldItTakeRequest.newBuilder().setGang(GangRef.newBuilder().setNamespace(ns).setName("big")).build());
            assertThat(advice.getVerdict()).isEqualTo(WhatWouldItTakeResponse.Verdict.VERDICT_CANNOT_RUN);
            assertThat(advice.getWhy()).contains("has scheduling gates [example.com/hold]");
        } finally {
            channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aCallerCanNeitherFilterNorBindAPodOntoANodeItsNodeSelectorExcludes() {
        // a pending pod of Muster's profile whose nodeSelector matches no node: kube-scheduler never finds it a node
        V1Pod pod = Kube.podObject(ns, "pinned", null, "250m", "64Mi", Kube.SCHEDULER_NAME, null);
        pod.getSpec().setNodeSelector(Map.of(HOSTNAME, "nowhere"));
        V1Pod created = Kube.call("create pod", () -> c.admin.core().createNamespacedPod(ns, pod).execute());
        String uid = created.getMetadata().getUid();
        String url = "http://127.0.0.1:" + c.muster.extenderHttpPort();
        String podJson = "{\"metadata\":{\"name\":\"pinned\",\"namespace\":\"" + ns + "\",\"uid\":\"" + uid + "\"},"
                + "\"spec\":{\"schedulerName\":\"" + Kube.SCHEDULER_NAME + "\",\"containers\":[{\"name\":\"main\","
                + "\"resources\":{\"requests\":{\"cpu\":\"250m\"}}}]}}";
        byte[] filter = ("{\"Pod\":" + podJson + ",\"NodeNames\":[\"" + NODE_0 + "\"]}").getBytes(StandardCharsets.UTF_8);
        Awaitility.await("the filter refuses the node the pod's nodeSelector excludes").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> Http.post(url + "/filter", "application/json", filter).body(),
                        b -> b.contains("does not match the pod's nodeSelector (" + HOSTNAME + "=nowhere)") && !b.contains("\"NodeNames\":[\""));
        byte[] bind = ("{\"PodName\":\"pinned\",\"PodNamespace\":\"" + ns + "\",\"PodUID\":\"" + uid + "\",\"Node\":\"" + NODE_0 + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        Http.Answer answer = Http.post(url + "/bind", "application/json", bind);
        assertThat(answer.body()).contains("may not be bound to node " + NODE_0 + ": node " + NODE_0
                + " does not match the pod's nodeSelector (" + HOSTNAME + "=nowhere)");
        assertThat(c.admin.readPod(ns, "pinned").getSpec().getNodeName()).as("never bound").isNull();
    }
}
