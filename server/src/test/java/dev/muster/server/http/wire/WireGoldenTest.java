package dev.muster.server.http.wire;

import dev.muster.core.scheduler.Victims;
import dev.muster.core.scheduler.FilterResult;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.Resources;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden tests over every captured kube-scheduler v1.36 request: decoded values, answers that are the
 * same JSON as the answers kube-scheduler accepted, and key-case variants decoding to the same values.
 */
class WireGoldenTest {
    private static final long MI = 1L << 20;
    private static final long GI = 1L << 30;

    /** The extender-level keys kube-scheduler capitalises (Go field names). */
    private static final Set<String> EXTENDER_KEYS = Set.of("Pod", "Nodes", "NodeNames", "PodName", "PodNamespace",
            "PodUID", "Node", "NodeNameToVictims", "NodeNameToMetaVictims", "Pods", "UID", "NumPDBViolations");

    record ExpectedPod(String name, String namespace, String uid, String resourceVersion, Resources request,
                       GangKey gang, String task, int priority, String schedulerName, Map<String, String> annotations) {}

    record ExpectedArgs(String fixture, ExpectedPod pod, List<String> nodeNames, boolean full) {
        @Override
        public String toString() {
            return fixture;
        }
    }

    private static final ExpectedPod NODECACHE_TRUE_POD = new ExpectedPod("gang-pod-nc", "default",
            "4952cf49-ad11-4237-a126-55e5368c0122", "222", Resources.ofPod(100, 64 * MI), null, "", 0,
            "gang-scheduler-nc", Map.of());
    private static final ExpectedPod NODECACHE_FALSE_POD = new ExpectedPod("gang-pod-2", "default",
            "4f4a1dec-f32f-42a4-a107-c9e4a757f076", "234", Resources.ofPod(100, 64 * MI), null, "", 0,
            "gang-scheduler", Map.of());
    private static final ExpectedPod GANG_POD = new ExpectedPod("gang-gpu-1", "bench",
            "d773cc98-31b0-4dba-82b5-d3eb51195ef5", "156430",
            Resources.builder().set("cpu", 1000).set("memory", GI).set("nvidia.com/gpu", 1).set("pods", 1).build(),
            new GangKey("bench", "pg1"), "worker", 0, "bench-c",
            Map.of("scheduling.k8s.io/group-name", "pg1", "volcano.sh/task-spec", "worker"));
    private static final ExpectedPod PREEMPTOR_FILTERED = new ExpectedPod("high-1", "bench",
            "05fa6a24-32bb-4e0f-b814-5faf0b0f8682", "156473", Resources.ofPod(1000, 512 * MI), null, "", 1000,
            "bench-p", Map.of());

    static Stream<ExpectedArgs> extenderArgsFixtures() {
        List<String> threeNodes = List.of("node-1", "node-2", "node-3");
        List<String> gpuNodes = List.of("bench-node-0004", "bench-node-0002", "bench-node-0003", "bench-node-0001");
        return Stream.of(
                new ExpectedArgs("nodecache-true/filter-request.json", NODECACHE_TRUE_POD, threeNodes, false),
                new ExpectedArgs("nodecache-true/prioritize-request.json", NODECACHE_TRUE_POD, threeNodes, false),
                new ExpectedArgs("nodecache-false/filter-request.json", NODECACHE_FALSE_POD, threeNodes, true),
                new ExpectedArgs("nodecache-false/prioritize-request.json", NODECACHE_FALSE_POD, threeNodes, true),
                new ExpectedArgs("gang-annotated/filter-request.json", GANG_POD, gpuNodes, false),
                new ExpectedArgs("gang-annotated/prioritize-request.json", GANG_POD, gpuNodes, false),
                new ExpectedArgs("preempt/filter-request.json", PREEMPTOR_FILTERED, List.of("preempt-node-1"), false));
    }

    @Test
    void everyRequestFixtureIsCovered() {
        List<String> covered = new ArrayList<>(extenderArgsFixtures().map(ExpectedArgs::fixture).toList());
        covered.addAll(bindFixtures().map(a -> (String) a.get()[0]).toList());
        covered.add("preempt/preempt-request.json");
        assertThat(covered).containsExactlyInAnyOrderElementsOf(Fixtures.allRequests());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("extenderArgsFixtures")
    void decodesExtenderArgs(ExpectedArgs expected) {
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(Fixtures.bytes(expected.fixture()));

        assertPod(args.pod(), expected.pod());
        assertThat(args.nodeNames()).containsExactlyElementsOf(expected.nodeNames());
        assertThat(args.nodesGivenInFull()).isEqualTo(expected.full());
        if (expected.full()) {
            assertThat(args.fullNodes().names()).containsExactlyElementsOf(expected.nodeNames());
            for (int i = 0; i < args.fullNodes().size(); i++) {
                byte[] node = args.fullNodes().nodeJson(i);
                assertThat(node[0]).isEqualTo((byte) '{');
                assertThat(node[node.length - 1]).isEqualTo((byte) '}');
                @SuppressWarnings("unchecked")
                Map<String, Object> tree = (Map<String, Object>) JsonTrees.parse(node);
                assertThat(((Map<?, ?>) tree.get("metadata")).get("name")).isEqualTo(expected.nodeNames().get(i));
                assertThat(tree).containsKeys("spec", "status");
            }
        } else {
            assertThat(args.fullNodes()).isNull();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("extenderArgsFixtures")
    void filterAnswerPassingEveryNodeIsTheAnswerKubeSchedulerAccepted(ExpectedArgs expected) {
        String response = expected.fixture().replace("prioritize-request", "filter-response")
                .replace("filter-request", "filter-response");
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(Fixtures.bytes(expected.fixture()));

        byte[] answer = WireEncoder.encodeFilterResult(args, new FilterResult(args.nodeNames(), Map.of(), Map.of()));

        assertThat(JsonTrees.parse(answer)).isEqualTo(JsonTrees.parse(Fixtures.bytes(response)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("extenderArgsFixtures")
    void filterAnswerWithFailedNodesHasTheAcceptedShape(ExpectedArgs expected) {
        String response = expected.fixture().replace("prioritize-request", "filter-response")
                .replace("filter-request", "filter-response");
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(Fixtures.bytes(expected.fixture()));
        List<String> names = args.nodeNames();
        List<String> passing = names.subList(0, names.size() - 1);
        String failed = names.get(names.size() - 1);

        byte[] answer = WireEncoder.encodeFilterResult(args, new FilterResult(passing,
                Map.of(failed, "gang bench/pg1: 3/8 pods exist"), Map.of(failed, "needs 8×(4 cpu, 16Gi), fits 5")));

        Map<?, ?> tree = (Map<?, ?>) JsonTrees.parse(answer);
        Map<?, ?> accepted = (Map<?, ?>) JsonTrees.parse(Fixtures.bytes(response));
        assertThat(tree.keySet()).isEqualTo(accepted.keySet());
        assertThat(tree.get("FailedNodes")).isEqualTo(Map.of(failed, "gang bench/pg1: 3/8 pods exist"));
        assertThat(tree.get("FailedAndUnresolvableNodes")).isEqualTo(Map.of(failed, "needs 8×(4 cpu, 16Gi), fits 5"));
        if (args.nodesGivenInFull()) {
            assertThat(tree.get("NodeNames")).isNull();
            List<?> items = (List<?>) ((Map<?, ?>) tree.get("Nodes")).get("items");
            List<?> acceptedItems = (List<?>) ((Map<?, ?>) accepted.get("Nodes")).get("items");
            assertThat(items).isEqualTo(acceptedItems.subList(0, passing.size()));
        } else {
            assertThat(tree.get("Nodes")).isNull();
            assertThat(tree.get("NodeNames")).isEqualTo(passing);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("extenderArgsFixtures")
    void prioritizeAnswerIsTheAnswerKubeSchedulerAccepted(ExpectedArgs expected) {
        if (!expected.fixture().contains("prioritize")) {
            return;
        }
        String response = expected.fixture().replace("prioritize-request", "prioritize-response");
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(Fixtures.bytes(expected.fixture()));

        byte[] answer = WireEncoder.encodePrioritizeResult(args.nodeNames(), new int[args.nodeNames().size()]);

        assertThat(JsonTrees.parse(answer)).isEqualTo(JsonTrees.parse(Fixtures.bytes(response)));
    }

    @Test
    void filterAndPrioritizeBodiesOfOnePodAreIdentical() {
        for (String dir : List.of("nodecache-true", "nodecache-false", "gang-annotated")) {
            assertThat(Fixtures.bytes(dir + "/prioritize-request.json")).isEqualTo(Fixtures.bytes(dir + "/filter-request.json"));
        }
    }

    static Stream<Arguments> bindFixtures() {
        return Stream.of(
                Arguments.of("nodecache-true/bind-request.json",
                        new BindingArgs("gang-pod-nc", "default", "4952cf49-ad11-4237-a126-55e5368c0122", "node-3")),
                Arguments.of("nodecache-false/bind-request.json",
                        new BindingArgs("gang-pod-2", "default", "4f4a1dec-f32f-42a4-a107-c9e4a757f076", "node-1")),
                Arguments.of("gang-annotated/bind-request.json",
                        new BindingArgs("gang-gpu-1", "bench", "d773cc98-31b0-4dba-82b5-d3eb51195ef5", "bench-node-0001")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bindFixtures")
    void decodesBindingArgsAndAnswersAsAccepted(String fixture, BindingArgs expected) {
        assertThat(WireDecoder.decodeBindingArgs(Fixtures.bytes(fixture))).isEqualTo(expected);

        byte[] answer = WireEncoder.encodeBindResult("");
        assertThat(JsonTrees.parse(answer))
                .isEqualTo(JsonTrees.parse(Fixtures.bytes(fixture.replace("bind-request", "bind-response"))));
        assertThat(JsonTrees.parse(WireEncoder.encodeBindResult("gang bench/pg1 timed out")))
                .isEqualTo(Map.of("Error", "gang bench/pg1 timed out"));
    }

    @Test
    void decodesPreemptionArgsWithMetaVictimsAndEchoesThemAsAccepted() {
        PreemptionArgs args = WireDecoder.decodePreemptionArgs(Fixtures.bytes("preempt/preempt-request.json"));

        assertPod(args.pod(), new ExpectedPod("high-1", "bench", "05fa6a24-32bb-4e0f-b814-5faf0b0f8682", "156470",
                Resources.ofPod(1000, 512 * MI), null, "", 1000, "bench-p", Map.of()));
        assertThat(args.nodeNameToMetaVictims()).containsExactly(
                Map.entry("preempt-node-1", new Victims(List.of("d74f74e3-eeae-491f-9282-a11a99985ead"), 0)),
                Map.entry("preempt-node-2", new Victims(List.of("a5169bd1-dcc4-4728-8dce-7a22c2ed8df9"), 0)),
                Map.entry("preempt-node-3", new Victims(List.of("b24492bf-d9ba-4591-a5a6-c53bf2587600"), 0)));

        byte[] answer = WireEncoder.encodePreemptionResult(args.nodeNameToMetaVictims());
        assertThat(JsonTrees.parse(answer)).isEqualTo(JsonTrees.parse(Fixtures.bytes("preempt/preempt-response.json")));
    }

    @Test
    void fullVictimPodsAreReducedToTheirUids() {
        String pod = new String(Fixtures.bytes("preempt/preempt-request.json"), StandardCharsets.UTF_8);
        String podJson = pod.substring(pod.indexOf("{\"metadata\""), pod.indexOf(",\"NodeNameToVictims\""));
        String victim = "{\"metadata\":{\"name\":\"low-3\",\"namespace\":\"bench\",\"uid\":\"v-3\",\"labels\":{\"a\":\"b\"}},"
                + "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"1\"}}}]},\"status\":{\"phase\":\"Running\"}}";
        String body = "{\"Pod\":" + podJson + ",\"NodeNameToVictims\":{\"preempt-node-1\":{\"Pods\":[" + victim + "," + victim.replace("v-3", "v-4")
                + "],\"NumPDBViolations\":2}},\"NodeNameToMetaVictims\":null}";

        PreemptionArgs args = WireDecoder.decodePreemptionArgs(body.getBytes(StandardCharsets.UTF_8));

        assertThat(args.pod().uid()).isEqualTo("05fa6a24-32bb-4e0f-b814-5faf0b0f8682");
        assertThat(args.nodeNameToMetaVictims())
                .containsExactly(Map.entry("preempt-node-1", new Victims(List.of("v-3", "v-4"), 2)));
    }

    static Stream<Arguments> keyCases() {
        return Stream.of(
                Arguments.of("lower-case", (UnaryOperator<String>) k -> k.toLowerCase(Locale.ROOT)),
                Arguments.of("upper-case", (UnaryOperator<String>) k -> k.toUpperCase(Locale.ROOT)),
                Arguments.of("alternating case", (UnaryOperator<String>) WireGoldenTest::alternateCase));
    }

    @ParameterizedTest(name = "{0} extender keys")
    @MethodSource("keyCases")
    void extenderKeysMatchCaseInsensitively(String name, UnaryOperator<String> recase) {
        UnaryOperator<String> rename = k -> EXTENDER_KEYS.contains(k) ? recase.apply(k) : k;
        for (String fixture : Fixtures.EXTENDER_ARGS_REQUESTS) {
            byte[] original = Fixtures.bytes(fixture);
            byte[] recased = JsonTrees.renameKeys(original, rename);
            assertThat(recased).as(fixture).isNotEqualTo(original);
            ExtenderArgs a = WireDecoder.decodeExtenderArgs(original);
            ExtenderArgs b = WireDecoder.decodeExtenderArgs(recased);
            assertThat(b.pod()).as(fixture).isEqualTo(a.pod());
            assertThat(b.nodeNames()).as(fixture).isEqualTo(a.nodeNames());
            assertThat(b.nodesGivenInFull()).as(fixture).isEqualTo(a.nodesGivenInFull());
            for (int i = 0; a.nodesGivenInFull() && i < a.fullNodes().size(); i++) {
                assertThat(JsonTrees.parse(b.fullNodes().nodeJson(i))).isEqualTo(JsonTrees.parse(a.fullNodes().nodeJson(i)));
            }
        }
        for (String fixture : Fixtures.BINDING_REQUESTS) {
            byte[] original = Fixtures.bytes(fixture);
            assertThat(WireDecoder.decodeBindingArgs(JsonTrees.renameKeys(original, rename)))
                    .as(fixture).isEqualTo(WireDecoder.decodeBindingArgs(original));
        }
        for (String fixture : Fixtures.PREEMPTION_REQUESTS) {
            byte[] original = Fixtures.bytes(fixture);
            assertThat(WireDecoder.decodePreemptionArgs(JsonTrees.renameKeys(original, rename)))
                    .as(fixture).isEqualTo(WireDecoder.decodePreemptionArgs(original));
        }
    }

    @Test
    void podKeysAreCaseSensitiveLikeKubernetesJson() {
        byte[] body = JsonTrees.renameKeys(Fixtures.bytes("nodecache-true/filter-request.json"),
                k -> k.equals("uid") ? "UID" : k);
        assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> WireDecoder.decodeExtenderArgs(body)))
                .isInstanceOf(WireFormatException.class).hasMessage("Pod: pod has no metadata.uid");
    }

    @Test
    void nullListsAndMapsAreEmpty() {
        String pod = "{\"metadata\":{\"name\":\"p\",\"namespace\":\"ns\",\"uid\":\"u\",\"annotations\":null,\"labels\":null},"
                + "\"spec\":{\"containers\":null,\"initContainers\":null,\"overhead\":null,\"resources\":null,"
                + "\"priority\":null,\"schedulerName\":null,\"nodeName\":null},\"status\":null}";
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(
                ("{\"Pod\":" + pod + ",\"Nodes\":null,\"NodeNames\":null}").getBytes(StandardCharsets.UTF_8));
        assertThat(args.nodeNames()).isEmpty();
        assertThat(args.nodesGivenInFull()).isFalse();
        assertThat(args.pod().pod().request()).isEqualTo(Resources.builder().set("pods", 1).build());
        assertThat(args.pod().schedulerName()).isEmpty();
        assertThat(args.pod().annotations()).isEmpty();
        assertThat(args.pod().pod().phase()).isEqualTo(PodPhase.PENDING);

        ExtenderArgs emptyNodeList = WireDecoder.decodeExtenderArgs(
                ("{\"Pod\":" + pod + ",\"Nodes\":{\"metadata\":null,\"items\":null}}").getBytes(StandardCharsets.UTF_8));
        assertThat(emptyNodeList.nodesGivenInFull()).isTrue();
        assertThat(emptyNodeList.nodeNames()).isEmpty();

        String containerNulls = pod.replace("\"containers\":null", "\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":null,\"limits\":null}},"
                + "{\"resources\":null},{\"resources\":{\"requests\":{\"cpu\":null,\"memory\":\"1Mi\"}}}]");
        assertThat(WireDecoder.decodeExtenderArgs(("{\"Pod\":" + containerNulls + "}").getBytes(StandardCharsets.UTF_8))
                .pod().pod().request()).isEqualTo(Resources.ofPod(0, MI));

        PreemptionArgs preempt = WireDecoder.decodePreemptionArgs(
                ("{\"Pod\":" + pod + ",\"NodeNameToVictims\":null,\"NodeNameToMetaVictims\":null}").getBytes(StandardCharsets.UTF_8));
        assertThat(preempt.nodeNameToMetaVictims()).isEmpty();
        PreemptionArgs nullPods = WireDecoder.decodePreemptionArgs(
                ("{\"Pod\":" + pod + ",\"NodeNameToMetaVictims\":{\"n\":{\"Pods\":null,\"NumPDBViolations\":null}}}").getBytes(StandardCharsets.UTF_8));
        assertThat(nullPods.nodeNameToMetaVictims()).containsExactly(Map.entry("n", new Victims(List.of(), 0)));
    }

    @Test
    void nodeByteRangesAreAbsoluteWhenTheBodyStartsAtAnOffset() {
        byte[] fixture = Fixtures.bytes("nodecache-false/filter-request.json");
        byte[] padded = new byte[fixture.length + 13];
        java.util.Arrays.fill(padded, (byte) 'x');
        System.arraycopy(fixture, 0, padded, 7, fixture.length);

        ExtenderArgs atOffset = WireDecoder.decodeExtenderArgs(padded, 7, fixture.length);
        ExtenderArgs plain = WireDecoder.decodeExtenderArgs(fixture);

        for (int i = 0; i < plain.fullNodes().size(); i++) {
            assertThat(atOffset.fullNodes().nodeJson(i)).isEqualTo(plain.fullNodes().nodeJson(i));
        }
        assertThat(WireEncoder.encodeFilterResult(atOffset, new FilterResult(List.of("node-3", "node-1"), Map.of(), Map.of())))
                .isEqualTo(WireEncoder.encodeFilterResult(plain, new FilterResult(List.of("node-3", "node-1"), Map.of(), Map.of())));
    }

    @Test
    void unknownTopLevelKeysAreSkippedAsGoDoes() {
        String body = new String(Fixtures.bytes("nodecache-true/filter-request.json"), StandardCharsets.UTF_8);
        String extended = "{\"FutureField\":{\"a\":[1,2,{\"b\":null}]}," + body.substring(1, body.length() - 1) + ",\"Other\":7}";
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(extended.getBytes(StandardCharsets.UTF_8));
        assertThat(args.nodeNames()).containsExactly("node-1", "node-2", "node-3");
    }

    @Test
    void whenBothNodesAndNodeNamesComeTheNodeObjectsWin() {
        String body = new String(Fixtures.bytes("nodecache-false/filter-request.json"), StandardCharsets.UTF_8)
                .replace("\"NodeNames\":null", "\"NodeNames\":[\"other\"]");
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(body.getBytes(StandardCharsets.UTF_8));
        assertThat(args.nodesGivenInFull()).isTrue();
        assertThat(args.nodeNames()).containsExactly("node-1", "node-2", "node-3");
    }

    @Test
    void whenBothVictimMapsComeTheMetaVictimsWin() {
        String body = new String(Fixtures.bytes("preempt/preempt-request.json"), StandardCharsets.UTF_8)
                .replace("\"NodeNameToVictims\":null",
                        "\"NodeNameToVictims\":{\"elsewhere\":{\"Pods\":[{\"metadata\":{\"uid\":\"x\"}}],\"NumPDBViolations\":0}}");
        PreemptionArgs args = WireDecoder.decodePreemptionArgs(body.getBytes(StandardCharsets.UTF_8));
        assertThat(args.nodeNameToMetaVictims()).containsOnlyKeys("preempt-node-1", "preempt-node-2", "preempt-node-3");
    }

    @Test
    void keepsMusterAnnotationsAndDropsOthers() {
        String body = new String(Fixtures.bytes("gang-annotated/filter-request.json"), StandardCharsets.UTF_8)
                .replace("\"volcano.sh/task-spec\":\"worker\"",
                        "\"volcano.sh/task-spec\":\"worker\",\"muster.dev/note\":\"x\",\"other.io/y\":\"z\"");
        WirePod pod = WireDecoder.decodeExtenderArgs(body.getBytes(StandardCharsets.UTF_8)).pod();
        assertThat(pod.annotations()).containsOnlyKeys("scheduling.k8s.io/group-name", "volcano.sh/task-spec", "muster.dev/note");
    }

    @Test
    void volcanoGroupNameAnnotationAlsoMakesAGang() {
        String body = new String(Fixtures.bytes("gang-annotated/filter-request.json"), StandardCharsets.UTF_8)
                .replace("scheduling.k8s.io/group-name", "scheduling.volcano.sh/group-name");
        Pod pod = WireDecoder.decodeExtenderArgs(body.getBytes(StandardCharsets.UTF_8)).pod().pod();
        assertThat(pod.gang()).isEqualTo(new GangKey("bench", "pg1"));
    }

    @Test
    void boundPodKeepsNodeNameAndPhase() {
        String body = new String(Fixtures.bytes("nodecache-true/filter-request.json"), StandardCharsets.UTF_8)
                .replace("\"schedulerName\":", "\"nodeName\":\"node-9\",\"schedulerName\":")
                .replace("\"phase\":\"Pending\"", "\"phase\":\"Running\"");
        Pod pod = WireDecoder.decodeExtenderArgs(body.getBytes(StandardCharsets.UTF_8)).pod().pod();
        assertThat(pod.nodeName()).isEqualTo("node-9");
        assertThat(pod.phase()).isEqualTo(PodPhase.RUNNING);
        assertThat(pod.holdsResources()).isTrue();
    }

    private static void assertPod(WirePod wire, ExpectedPod expected) {
        Pod pod = wire.pod();
        assertThat(pod.id().name()).isEqualTo(expected.name());
        assertThat(pod.id().namespace()).isEqualTo(expected.namespace());
        assertThat(pod.uid()).isEqualTo(expected.uid());
        assertThat(wire.uid()).isEqualTo(expected.uid());
        assertThat(pod.resourceVersion()).isEqualTo(expected.resourceVersion());
        assertThat(pod.request()).isEqualTo(expected.request());
        assertThat(pod.gang()).isEqualTo(expected.gang());
        assertThat(pod.task()).isEqualTo(expected.task());
        assertThat(pod.priority()).isEqualTo(expected.priority());
        assertThat(pod.nodeName()).isNull();
        assertThat(pod.phase()).isEqualTo(PodPhase.PENDING);
        assertThat(wire.schedulerName()).isEqualTo(expected.schedulerName());
        assertThat(wire.annotations()).isEqualTo(expected.annotations());
    }

    private static String alternateCase(String s) {
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(i % 2 == 0 ? Character.toLowerCase(c) : Character.toUpperCase(c));
        }
        return sb.toString();
    }
}
