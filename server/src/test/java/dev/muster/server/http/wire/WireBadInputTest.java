package dev.muster.server.http.wire;

import static dev.muster.server.http.wire.Bodies.json;
import static dev.muster.server.http.wire.Bodies.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad bodies, each rejected with a WireFormatException whose message names the problem and where. */
class WireBadInputTest {
    enum Decoder {
        EXTENDER_ARGS(WireDecoder::decodeExtenderArgs),
        BINDING_ARGS(WireDecoder::decodeBindingArgs),
        PREEMPTION_ARGS(WireDecoder::decodePreemptionArgs);

        final Function<byte[], Object> decode;

        Decoder(Function<byte[], Object> decode) {
            this.decode = decode;
        }
    }

    private static final String POD = Bodies.POD.formatted("'containers':[" + Bodies.container("cpu", "100m") + "]");

    private static Arguments filter(String name, String singleQuotedBody, String expectedMessage) {
        return Arguments.of(name, Decoder.EXTENDER_ARGS, utf8(json(singleQuotedBody)), expectedMessage);
    }

    private static Arguments filterSpec(String name, String specFields, String expectedMessage) {
        return Arguments.of(name, Decoder.EXTENDER_ARGS, Bodies.filterWithSpec(specFields), expectedMessage);
    }

    private static Arguments bind(String name, String singleQuotedBody, String expectedMessage) {
        return Arguments.of(name, Decoder.BINDING_ARGS, utf8(json(singleQuotedBody)), expectedMessage);
    }

    private static Arguments preempt(String name, String singleQuotedBody, String expectedMessage) {
        return Arguments.of(name, Decoder.PREEMPTION_ARGS, utf8(json(singleQuotedBody)), expectedMessage);
    }

    static Stream<Arguments> badBodies() {
        String deep = "[".repeat(300) + "]".repeat(300);
        return Stream.of(
                // the body as a whole
                Arguments.of("empty body", Decoder.EXTENDER_ARGS, new byte[0], "body is empty"),
                Arguments.of("only whitespace", Decoder.BINDING_ARGS, utf8(" \n\t "), "body is empty"),
                filter("an array instead of an object", "[{'Pod':{}}]", "body must be a JSON object, got an array"),
                filter("a string instead of an object", "'Pod'", "body must be a JSON object, got a string"),
                filter("null instead of an object", "null", "body must be a JSON object, got null"),
                filter("a number instead of an object", "42", "body must be a JSON object, got a number"),
                filter("not JSON at all", "hello", "body is not JSON: it starts with byte 0x68"),
                Arguments.of("UTF-8 byte order mark", Decoder.EXTENDER_ARGS,
                        utf8("\uFEFF{\"Pod\":null}"), "body is not JSON: it starts with byte 0xEF"),
                Arguments.of("UTF-16 encoded", Decoder.EXTENDER_ARGS,
                        "{\"Pod\":null}".getBytes(StandardCharsets.UTF_16LE), "body is not JSON: NUL byte at byte 1"),
                filter("truncated", "{'Pod':{'metadata':{'name':'p'", "body is not JSON at byte 30 in Pod.metadata.name: Unexpected end-of-input: expected close marker for Object (start marker at [line: 1, column: 20])"),
                filter("missing colon", "{'Pod' {}}", "body is not JSON at byte"),
                filter("unquoted key", "{Pod:{}}", "body is not JSON at byte"),
                filter("trailing comma", "{'NodeNames':['a',]}", "body is not JSON at byte"),
                filter("trailing garbage", "{'Pod':" + POD + "}x", "trailing data after the JSON object at byte"),
                filter("a second JSON value", "{'Pod':" + POD + "} {}", "trailing data after the JSON object: an object"),
                filter("nesting deeper than the limit", "{'Pod':" + POD + ",'Extra':" + deep + "}",
                        "body exceeds a parser limit in Extra"),
                filter("nesting deeper than the limit inside the pod", "{'Pod':{'metadata':{'managedFields':" + deep + "}}}",
                        "nesting depth (257) exceeds the maximum allowed (256"),
                filter("labels that are not an object", "{'Pod':{'metadata':{'labels':[1]}}}",
                        "Pod.metadata.labels: must be an object of strings, got an array"),
                filter("a scheduling group that is not an object", "{'Pod':{'spec':{'schedulingGroup':'pg'}}}",
                        "Pod.spec.schedulingGroup: must be an object"),
                Arguments.of("invalid UTF-8 in a string that is read", Decoder.EXTENDER_ARGS,
                        concat(utf8("{\"NodeNames\":[\"n"), new byte[] {(byte) 0xFF}, utf8("\"]}")), "body is not JSON at byte"),

                // ExtenderArgs
                filter("missing Pod", "{'NodeNames':['n1']}", "missing \"Pod\""),
                filter("null Pod", "{'Pod':null,'NodeNames':['n1']}", "missing \"Pod\""),
                filter("Pod is a string", "{'Pod':'p'}", "Pod: must be a Pod object, got a string"),
                filter("Pod twice", "{'Pod':" + POD + ",'Pod':" + POD + "}", "Pod: duplicate key \"Pod\""),
                filter("Pod twice in different case", "{'Pod':" + POD + ",'pod':" + POD + "}", "pod: duplicate key \"pod\""),
                filter("NodeNames is a number", "{'Pod':" + POD + ",'NodeNames':3}", "NodeNames: must be an array of strings, got a number"),
                filter("NodeNames holds a number", "{'Pod':" + POD + ",'NodeNames':['a',3]}", "NodeNames[1]: must be a string, got a number"),
                filter("NodeNames holds null", "{'Pod':" + POD + ",'NodeNames':['a','b',null]}", "NodeNames[2]: must be a string, got null"),
                filter("Nodes is an array", "{'Pod':" + POD + ",'Nodes':[]}", "Nodes: must be a NodeList object, got an array"),
                filter("Nodes.items is an object", "{'Pod':" + POD + ",'Nodes':{'items':{}}}", "Nodes.items: must be an array of Node objects, got an object"),
                filter("a node is a string", "{'Pod':" + POD + ",'Nodes':{'items':['n1']}}", "Nodes.items[0]: must be a Node object, got a string"),
                filter("a node without a name", "{'Pod':" + POD + ",'Nodes':{'items':[{'metadata':{'name':'a'}},{'metadata':{'uid':'x'}}]}}",
                        "Nodes.items[1]: node has no metadata.name"),
                filter("a node name twice", "{'Pod':" + POD + ",'Nodes':{'items':[{'metadata':{'name':'a','name':'b'}}]}}",
                        "Nodes.items[0].metadata.name: duplicate key \"name\""),

                // the pod's metadata
                filter("pod without uid", "{'Pod':{'metadata':{'name':'p','namespace':'ns'}}}", "Pod: pod has no metadata.uid"),
                filter("pod with an empty uid", "{'Pod':{'metadata':{'name':'p','namespace':'ns','uid':''}}}", "Pod: pod has no metadata.uid"),
                filter("pod without namespace", "{'Pod':{'metadata':{'name':'p','uid':'u'}}}", "Pod: pod has no metadata.namespace"),
                filter("pod without name", "{'Pod':{'metadata':{'namespace':'ns','uid':'u'}}}", "Pod: pod has no metadata.name"),
                filter("pod without metadata", "{'Pod':{'spec':{}}}", "Pod: pod has no metadata.uid"),
                filter("uid is a number", "{'Pod':{'metadata':{'name':'p','namespace':'ns','uid':7}}}", "Pod.metadata.uid: must be a string, got a number"),
                filter("uid twice", "{'Pod':{'metadata':{'name':'p','namespace':'ns','uid':'a','uid':'b'}}}", "Pod.metadata.uid: duplicate key \"uid\""),
                filter("metadata is an array", "{'Pod':{'metadata':[]}}", "Pod.metadata: must be an object, got an array"),
                filter("annotations is a string", "{'Pod':{'metadata':{'annotations':'x'}}}", "Pod.metadata.annotations: must be an object of strings, got a string"),
                filter("annotation value is a number", "{'Pod':{'metadata':{'annotations':{'x':1}}}}", "Pod.metadata.annotations.x: must be a string, got a number"),
                filter("gang annotation twice", "{'Pod':{'metadata':{'annotations':{'volcano.sh/task-spec':'a','volcano.sh/task-spec':'b'}}}}",
                        "Pod.metadata.annotations.volcano.sh/task-spec: duplicate key \"volcano.sh/task-spec\""),

                // the pod's spec
                filterSpec("quantity that is not a number", "'containers':[" + Bodies.container("cpu", "abc") + "]",
                        "Pod.spec.containers[0].resources.requests.cpu: quantity \"abc\" does not start with a number"),
                filterSpec("quantity with an unknown suffix", "'containers':[" + Bodies.container("memory", "1Gb") + "]",
                        "Pod.spec.containers[0].resources.requests.memory: quantity \"1Gb\" has an unknown suffix \"Gb\""),
                filterSpec("empty quantity", "'containers':[" + Bodies.container("memory", "") + "]",
                        "Pod.spec.containers[0].resources.requests.memory: quantity is empty"),
                filterSpec("negative request", "'containers':[" + Bodies.container("cpu", "100m") + "," + Bodies.container("cpu", "-1") + "]",
                        "Pod.spec.containers[1].resources.requests.cpu: requests must not be negative, got \"-1\""),
                filterSpec("negative request too small to round", "'containers':[" + Bodies.container("memory", "-0.5") + "]",
                        "Pod.spec.containers[0].resources.requests.memory: requests must not be negative, got \"-0.5\""),
                filterSpec("negative init container request", "'initContainers':[" + Bodies.container("memory", "-1Mi") + "]",
                        "Pod.spec.initContainers[0].resources.requests.memory: requests must not be negative"),
                filterSpec("negative overhead", "'overhead':" + Bodies.list("cpu", "-10m"),
                        "Pod.spec.overhead.cpu: overhead must not be negative, got \"-10m\""),
                filterSpec("negative pod-level request", "'resources':{'requests':" + Bodies.list("cpu", "-1") + "}",
                        "Pod.spec.resources.requests.cpu: requests must not be negative"),
                filterSpec("quantity is an object", "'containers':[{'resources':{'requests':{'cpu':{}}}}]",
                        "Pod.spec.containers[0].resources.requests.cpu: must be a quantity, got an object"),
                filterSpec("quantity is a boolean", "'containers':[{'resources':{'requests':{'cpu':true}}}]",
                        "Pod.spec.containers[0].resources.requests.cpu: must be a quantity, got a boolean"),
                filterSpec("resource requested twice", "'containers':[{'resources':{'requests':{'cpu':'1','cpu':'2'}}}]",
                        "Pod.spec.containers[0].resources.requests.cpu: duplicate key \"cpu\""),
                filterSpec("invalid resource name", "'containers':[{'resources':{'requests':{'bad name!':'1'}}}]",
                        "Pod.spec.containers[0].resources.requests.bad name!: invalid resource name \"bad name!\""),
                filterSpec("empty resource name", "'containers':[{'resources':{'requests':{'':'1'}}}]",
                        "invalid resource name \"\""),
                filterSpec("requests is an array", "'containers':[{'resources':{'requests':['cpu']}}]",
                        "Pod.spec.containers[0].resources.requests: must be an object of resource quantities, got an array"),
                filterSpec("containers is an object", "'containers':{}", "Pod.spec.containers: must be an array of containers, got an object"),
                filterSpec("a container is a string", "'containers':['c']", "Pod.spec.containers[0]: must be a container object, got a string"),
                filterSpec("a container is null", "'containers':[null]", "Pod.spec.containers[0]: must be a container object, got null"),
                filterSpec("container resources twice", "'containers':[{'resources':{},'resources':{}}]",
                        "Pod.spec.containers[0].resources: duplicate key \"resources\""),
                filterSpec("restartPolicy is a number", "'initContainers':[{'restartPolicy':1}]",
                        "Pod.spec.initContainers[0].restartPolicy: must be a string, got a number"),
                filterSpec("priority is a fraction", "'priority':1.5", "Pod.spec.priority: must be an integer, got a number"),
                filterSpec("priority is a string", "'priority':'high'", "Pod.spec.priority: must be an integer, got a string"),
                filterSpec("priority beyond 32 bits", "'priority':2147483648", "Pod.spec.priority: integer 2147483648 does not fit in 32 bits"),
                filterSpec("huge priority", "'priority':123456789012345678901234567890", "Pod.spec.priority: integer 123456789012345678901234567890 does not fit in 32 bits"),
                filterSpec("schedulerName is an object", "'schedulerName':{}", "Pod.spec.schedulerName: must be a string, got an object"),
                filterSpec("spec twice", "'priority':1},'spec':{'priority':2", "Pod.spec: duplicate key \"spec\""),
                filter("status.phase is a number", "{'Pod':{'metadata':{'name':'p','namespace':'ns','uid':'u'},'status':{'phase':1}}}",
                        "Pod.status.phase: must be a string, got a number"),

                // BindingArgs
                bind("missing PodUID", "{'PodName':'p','PodNamespace':'ns','Node':'n'}", "missing \"PodUID\""),
                bind("missing Node", "{'PodName':'p','PodNamespace':'ns','PodUID':'u'}", "missing \"Node\""),
                bind("null PodName", "{'PodName':null,'PodNamespace':'ns','PodUID':'u','Node':'n'}", "missing \"PodName\""),
                bind("empty Node", "{'PodName':'p','PodNamespace':'ns','PodUID':'u','Node':''}", "\"Node\" must not be empty"),
                bind("PodUID is a number", "{'PodName':'p','PodNamespace':'ns','PodUID':1,'Node':'n'}", "PodUID: must be a string, got a number"),
                bind("Node twice in different case", "{'PodName':'p','PodNamespace':'ns','PodUID':'u','Node':'a','NODE':'b'}",
                        "NODE: duplicate key \"NODE\""),
                bind("an array", "[]", "body must be a JSON object, got an array"),

                // PreemptionArgs
                preempt("missing Pod", "{'NodeNameToMetaVictims':{}}", "missing \"Pod\""),
                preempt("victims map is an array", "{'Pod':" + POD + ",'NodeNameToMetaVictims':[]}",
                        "NodeNameToMetaVictims: must be an object of node name to victims, got an array"),
                preempt("victims of a node are null", "{'Pod':" + POD + ",'NodeNameToMetaVictims':{'n1':null}}",
                        "NodeNameToMetaVictims.n1: must be a victims object, got null"),
                preempt("NumPDBViolations is a fraction", "{'Pod':" + POD + ",'NodeNameToMetaVictims':{'n1':{'Pods':[],'NumPDBViolations':0.5}}}",
                        "NodeNameToMetaVictims.n1.NumPDBViolations: must be an integer, got a number"),
                preempt("NumPDBViolations beyond 64 bits", "{'Pod':" + POD + ",'NodeNameToMetaVictims':{'n1':{'NumPDBViolations':99999999999999999999}}}",
                        "NodeNameToMetaVictims.n1.NumPDBViolations: integer 99999999999999999999 does not fit in 64 bits"),
                preempt("victim without UID", "{'Pod':" + POD + ",'NodeNameToMetaVictims':{'n1':{'Pods':[{'UID':'a'},{'Name':'b'}]}}}",
                        "NodeNameToMetaVictims.n1.Pods[1]: victim has no UID"),
                preempt("victim UID is a number", "{'Pod':" + POD + ",'NodeNameToMetaVictims':{'n1':{'Pods':[{'UID':5}]}}}",
                        "NodeNameToMetaVictims.n1.Pods[0].UID: must be a string, got a number"),
                preempt("victim is a string", "{'Pod':" + POD + ",'NodeNameToMetaVictims':{'n1':{'Pods':['a']}}}",
                        "NodeNameToMetaVictims.n1.Pods[0]: must be an object with a UID, got a string"),
                preempt("node twice", "{'Pod':" + POD + ",'NodeNameToMetaVictims':{'n1':{},'n1':{}}}",
                        "NodeNameToMetaVictims.n1: duplicate key \"n1\""),
                preempt("full victim pod without uid", "{'Pod':" + POD + ",'NodeNameToVictims':{'n1':{'Pods':[{'metadata':{'name':'v'}}]}}}",
                        "NodeNameToVictims.n1.Pods[0]: pod has no metadata.uid"),
                preempt("full victim pod is a number", "{'Pod':" + POD + ",'NodeNameToVictims':{'n1':{'Pods':[1]}}}",
                        "NodeNameToVictims.n1.Pods[0]: must be a Pod object, got a number"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badBodies")
    void rejectsWithAMessageNamingTheProblem(String name, Decoder decoder, byte[] body, String expectedMessage) {
        Throwable thrown = catchThrowable(() -> decoder.decode.apply(body));

        assertThat(thrown).isExactlyInstanceOf(WireFormatException.class).hasMessageContaining(expectedMessage);
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }
}
