package dev.muster.server.http.wire;

import static dev.muster.server.http.wire.Bodies.container;
import static dev.muster.server.http.wire.Bodies.list;
import static dev.muster.server.http.wire.Bodies.sidecar;
import static org.assertj.core.api.Assertions.assertThat;

import dev.muster.core.resources.Resources;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The decoded pod's effective request, as kube-scheduler computes it
 * ({@code k8s.io/component-helpers/resource.PodRequests}): max(app containers + sidecars, largest init
 * step), pod-level requests replacing what they name, plus overhead, plus one pod.
 */
class EffectiveRequestTest {
    private static final long MI = 1L << 20;
    private static final long GI = 1L << 30;

    private static Resources cpuMem(long millis, long bytes) {
        return Resources.ofPod(millis, bytes);
    }

    private static Arguments pod(String name, String specFields, Resources expected) {
        return Arguments.of(name, specFields, expected);
    }

    static Stream<Arguments> pods() {
        return Stream.of(
                pod("no containers at all: one pod, nothing else", "", Resources.builder().set("pods", 1).build()),
                pod("containers without requests", "'containers':[{'name':'a'},{'name':'b','resources':{}}]",
                        Resources.builder().set("pods", 1).build()),
                pod("limits alone are not requests", "'containers':[{'resources':{'limits':{'cpu':'2'}}}]",
                        Resources.builder().set("pods", 1).build()),
                pod("one container", "'containers':[" + container("cpu", "100m", "memory", "64Mi") + "]", cpuMem(100, 64 * MI)),
                pod("app containers add up", "'containers':[" + container("cpu", "100m", "memory", "64Mi") + ","
                        + container("cpu", "1.5", "memory", "1Gi") + "]", cpuMem(1600, GI + 64 * MI)),
                pod("an init container larger than the apps sets the floor",
                        "'initContainers':[" + container("cpu", "2", "memory", "16Mi") + "],'containers':["
                                + container("cpu", "500m", "memory", "256Mi") + "]", cpuMem(2000, 256 * MI)),
                pod("the largest of several init steps counts, not their sum",
                        "'initContainers':[" + container("cpu", "300m") + "," + container("cpu", "700m") + "," + container("cpu", "400m")
                                + "],'containers':[" + container("cpu", "100m") + "]", cpuMem(700, 0)),
                pod("a sidecar runs alongside the apps, so it adds to their sum",
                        "'initContainers':[" + sidecar("cpu", "100m", "memory", "32Mi") + "],'containers':["
                                + container("cpu", "200m", "memory", "64Mi") + "]", cpuMem(300, 96 * MI)),
                pod("an init container after a sidecar needs room next to it",
                        "'initContainers':[" + sidecar("cpu", "100m") + "," + container("cpu", "500m") + "],'containers':["
                                + container("cpu", "200m") + "]", cpuMem(600, 0)),
                pod("an init container before a sidecar does not share with it",
                        "'initContainers':[" + container("cpu", "500m") + "," + sidecar("cpu", "100m") + "],'containers':["
                                + container("cpu", "200m") + "]", cpuMem(500, 0)),
                pod("init restartPolicy other than Always is a regular init container",
                        "'initContainers':[{'restartPolicy':'OnFailure'," + Bodies.requests("cpu", "100m") + "}],'containers':["
                                + container("cpu", "200m") + "]", cpuMem(200, 0)),
                pod("restartPolicy on an app container makes no sidecar",
                        "'containers':[{'restartPolicy':'Always'," + Bodies.requests("cpu", "200m") + "}]", cpuMem(200, 0)),
                pod("overhead is added on top",
                        "'containers':[" + container("cpu", "1", "memory", "1Gi") + "],'overhead':" + list("cpu", "250m", "memory", "120Mi"),
                        cpuMem(1250, GI + 120 * MI)),
                pod("overhead is added after the init maximum",
                        "'initContainers':[" + container("cpu", "2") + "],'containers':[" + container("cpu", "1") + "],'overhead':"
                                + list("cpu", "100m"), cpuMem(2100, 0)),
                pod("pod-level requests replace the aggregate for what they name",
                        "'resources':{'requests':" + list("cpu", "3") + "},'containers':[" + container("cpu", "1", "memory", "1Gi") + "]",
                        cpuMem(3000, GI)),
                pod("pod-level requests, then overhead",
                        "'resources':{'requests':" + list("cpu", "3", "memory", "2Gi") + ",'limits':" + list("cpu", "4") + "},'overhead':"
                                + list("memory", "1Mi") + ",'containers':[" + container("cpu", "1", "memory", "1Gi") + "]",
                        cpuMem(3000, 2 * GI + MI)),
                pod("extended resources add up like the others",
                        "'containers':[" + container("nvidia.com/gpu", "1", "cpu", "1") + "," + container("nvidia.com/gpu", "2") + "]",
                        Resources.builder().set("cpu", 1000).set("nvidia.com/gpu", 3).set("pods", 1).build()),
                pod("ephemeral-storage and hugepages",
                        "'containers':[" + container("ephemeral-storage", "1Gi", "hugepages-2Mi", "4Mi") + "]",
                        Resources.builder().set("ephemeral-storage", GI).set("hugepages-2Mi", 4 * MI).set("pods", 1).build()),
                pod("quantities as bare JSON numbers, as Go accepts",
                        "'containers':[{'resources':{'requests':{'cpu':2,'memory':1048576,'example.com/dongle':0.5}}}]",
                        Resources.builder().set("cpu", 2000).set("memory", MI).set("example.com/dongle", 1).set("pods", 1).build()),
                pod("fractions round up, as Kubernetes does", "'containers':[" + container("cpu", "0.0001", "memory", "1.5") + "]",
                        cpuMem(1, 2)),
                pod("exponent and decimal suffixes", "'containers':[" + container("cpu", "1e-1", "memory", "1M") + "]",
                        cpuMem(100, 1_000_000)),
                pod("zero and negative zero are zero", "'containers':[" + container("cpu", "0", "memory", "-0") + "]",
                        Resources.builder().set("pods", 1).build()),
                pod("a null quantity is absent", "'containers':[{'resources':{'requests':{'cpu':null,'memory':'1Mi'}}}]", cpuMem(0, MI)),
                pod("ephemeral containers and other fields are ignored",
                        "'ephemeralContainers':[" + container("cpu", "9") + "],'volumes':[{'name':'v','emptyDir':{}}],'containers':["
                                + container("cpu", "1") + "]", cpuMem(1000, 0)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pods")
    void effectiveRequest(String name, String specFields, Resources expected) {
        ExtenderArgs args = WireDecoder.decodeExtenderArgs(Bodies.filterWithSpec(specFields));

        assertThat(args.pod().pod().request()).isEqualTo(expected);
    }
}
