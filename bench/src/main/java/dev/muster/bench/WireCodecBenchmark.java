package dev.muster.bench;

import dev.muster.server.http.wire.ExtenderArgs;
import dev.muster.core.scheduler.FilterResult;
import dev.muster.server.http.wire.WireDecoder;
import dev.muster.server.http.wire.WireEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The extender wire codec on kube-scheduler's hot path: decoding a filter body straight from the
 * request bytes, and encoding the answer.
 *
 * <ul>
 *   <li>{@code decodeNodeCacheTrueFilter}: the captured 1.7 KB {@code nodeCacheCapable: true} filter body
 *       (kube-scheduler v1.36, {@code nodecache-true/filter-request.json}).</li>
 *   <li>{@code decodeFullNodesFilter}: a synthetic {@code nodeCacheCapable: false} body with {@code nodes}
 *       Node objects, each a copy of the captured node (with managedFields, about 2.1 KB) under its own name.</li>
 *   <li>{@code encode...FilterResult}: the answer passing every node, by names or as verbatim node objects.</li>
 * </ul>
 *
 * Run (quick sanity): {@code java -cp <bench classpath> org.openjdk.jmh.Main WireCodecBenchmark -f 1 -wi 2 -i 3 -w 1s -r 1s}.
 * The bench module must be compiled with annotation processing on (JDK 23+ needs
 * {@code -Dmaven.compiler.proc=full} unless the pom configures it).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class WireCodecBenchmark {
    /** {@code nodecache-true/filter-request.json}, byte for byte. */
    static final String NODECACHE_TRUE_FILTER = "{\"Pod\":{\"metadata\":{\"name\":\"gang-pod-nc\",\"namespace\":\"default\",\"uid\":\"4952cf49-ad11-4237-a126-55e5368c0122\",\"r"
            + "esourceVersion\":\"222\",\"generation\":1,\"creationTimestamp\":\"2026-11-21T10:41:25Z\",\"labels\":{\"app\":\"gang-demo\",\"g"
            + "ang\":\"g1\"},\"annotations\":{\"example.com/gang-size\":\"1\"}},\"spec\":{\"volumes\":[{\"name\":\"kube-api-access-v6wzh\",\"pr"
            + "ojected\":{\"sources\":[{\"serviceAccountToken\":{\"expirationSeconds\":3607,\"path\":\"token\"}},{\"configMap\":{\"name\":\"k"
            + "ube-root-ca.crt\",\"items\":[{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}]}},{\"downwardAPI\":{\"items\":[{\"path\":\"namespace\",\"fi"
            + "eldRef\":{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.namespace\"}}]}},{\"configMap\":{\"name\":\"openshift-service-ca.cr"
            + "t\",\"items\":[{\"key\":\"service-ca.crt\",\"path\":\"service-ca.crt\"}]}}],\"defaultMode\":420}}],\"containers\":[{\"name\":\"c"
            + "\",\"image\":\"registry.k8s.io/pause:3.10\",\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"64Mi\"}},\"volumeMounts\":"
            + "[{\"name\":\"kube-api-access-v6wzh\",\"readOnly\":true,\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}]"
            + ",\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"imagePullPolicy\":\"IfNotPre"
            + "sent\"}],\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":\"ClusterFirst\",\"serviceAccount"
            + "Name\":\"default\",\"serviceAccount\":\"default\",\"securityContext\":{},\"schedulerName\":\"gang-scheduler-nc\",\"toleratio"
            + "ns\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300},{"
            + "\"key\":\"node.kubernetes.io/unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}],\"pri"
            + "ority\":0,\"enableServiceLinks\":true,\"preemptionPolicy\":\"PreemptLowerPriority\"},\"status\":{\"phase\":\"Pending\",\"qos"
            + "Class\":\"Burstable\"}},\"Nodes\":null,\"NodeNames\":[\"node-1\",\"node-2\",\"node-3\"]}";

    /** The first Node of {@code nodecache-false/filter-request.json}, its name replaced by {@code %1$s}. */
    static final String NODE_TEMPLATE = "{\"metadata\":{\"name\":\"%1$s\",\"uid\":\"26adf665-5bb9-48ed-b60d-9c32d3d719ca\",\"resourceVersion\":\"209\",\"creationTimes"
            + "tamp\":\"2026-11-21T10:47:18Z\",\"labels\":{\"kubernetes.io/arch\":\"amd64\",\"kubernetes.io/hostname\":\"%1$s\",\"kubernete"
            + "s.io/os\":\"linux\",\"topology.kubernetes.io/zone\":\"zone-a\"},\"managedFields\":[{\"manager\":\"kubectl-create\",\"operati"
            + "on\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2026-11-21T10:47:18Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":"
            + "{\"f:labels\":{\".\":{},\"f:kubernetes.io/arch\":{},\"f:kubernetes.io/hostname\":{},\"f:kubernetes.io/os\":{},\"f:topolog"
            + "y.kubernetes.io/zone\":{}}}}},{\"manager\":\"kubectl-patch\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"2026-11"
            + "-21T10:47:18Z\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:status\":{\"f:addresses\":{\".\":{},\"k:{\\\"type\\\":\\\"Hostname\\\""
            + "}\":{\".\":{},\"f:address\":{},\"f:type\":{}},\"k:{\\\"type\\\":\\\"InternalIP\\\"}\":{\".\":{},\"f:address\":{},\"f:type\":{}}},\"f:a"
            + "llocatable\":{\".\":{},\"f:cpu\":{},\"f:ephemeral-storage\":{},\"f:memory\":{},\"f:pods\":{}},\"f:capacity\":{\".\":{},\"f:cpu"
            + "\":{},\"f:ephemeral-storage\":{},\"f:memory\":{},\"f:pods\":{}},\"f:conditions\":{\".\":{},\"k:{\\\"type\\\":\\\"Ready\\\"}\":{\".\":"
            + "{},\"f:lastHeartbeatTime\":{},\"f:lastTransitionTime\":{},\"f:message\":{},\"f:reason\":{},\"f:status\":{},\"f:type\":{}}}"
            + ",\"f:nodeInfo\":{\"f:architecture\":{},\"f:containerRuntimeVersion\":{},\"f:kubeletVersion\":{},\"f:operatingSystem\":{}"
            + ",\"f:osImage\":{}}}},\"subresource\":\"status\"}]},\"spec\":{},\"status\":{\"capacity\":{\"cpu\":\"8\",\"ephemeral-storage\":\"10"
            + "0Gi\",\"memory\":\"32Gi\",\"pods\":\"110\"},\"allocatable\":{\"cpu\":\"8\",\"ephemeral-storage\":\"100Gi\",\"memory\":\"32Gi\",\"pods\""
            + ":\"110\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"lastHeartbeatTime\":\"2026-11-21T10:47:18Z\",\"lastTransiti"
            + "onTime\":\"2026-11-21T10:47:18Z\",\"reason\":\"KubeletReady\",\"message\":\"fake node, no kubelet\"}],\"addresses\":[{\"type"
            + "\":\"InternalIP\",\"address\":\"127.0.0.1\"},{\"type\":\"Hostname\",\"address\":\"%1$s\"}],\"daemonEndpoints\":{\"kubeletEndpoin"
            + "t\":{\"Port\":0}},\"nodeInfo\":{\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\",\"kernelVersion\":\"\",\"osImage\":\"fake\",\"con"
            + "tainerRuntimeVersion\":\"fake://0\",\"kubeletVersion\":\"v1.36.3\",\"kubeProxyVersion\":\"\",\"operatingSystem\":\"linux\",\"a"
            + "rchitecture\":\"amd64\"}}}";

    @Param({"500"})
    public int nodes;

    private byte[] nodeCacheTrueBody;
    private byte[] fullNodesBody;
    private ExtenderArgs namesArgs;
    private ExtenderArgs fullArgs;
    private FilterResult allNamesPass;
    private FilterResult allFullNodesPass;

    @Setup
    public void setup() {
        nodeCacheTrueBody = NODECACHE_TRUE_FILTER.getBytes(StandardCharsets.UTF_8);
        String pod = NODECACHE_TRUE_FILTER.substring("{\"Pod\":".length(), NODECACHE_TRUE_FILTER.indexOf(",\"Nodes\":"));
        StringBuilder body = new StringBuilder(256 + nodes * (NODE_TEMPLATE.length() + 16));
        body.append("{\"Pod\":").append(pod).append(",\"Nodes\":{\"metadata\":{},\"items\":[");
        for (int i = 0; i < nodes; i++) {
            if (i > 0) {
                body.append(',');
            }
            body.append(NODE_TEMPLATE.formatted(String.format("node-%05d", i)));
        }
        body.append("]},\"NodeNames\":null}");
        fullNodesBody = body.toString().getBytes(StandardCharsets.UTF_8);

        namesArgs = WireDecoder.decodeExtenderArgs(nodeCacheTrueBody);
        fullArgs = WireDecoder.decodeExtenderArgs(fullNodesBody);
        if (fullArgs.nodeNames().size() != nodes) {
            throw new IllegalStateException("synthetic body decoded to " + fullArgs.nodeNames().size() + " nodes");
        }
        allNamesPass = new FilterResult(namesArgs.nodeNames(), Map.of(), Map.of());
        allFullNodesPass = new FilterResult(fullArgs.nodeNames(), Map.of(), Map.of());
    }

    @Benchmark
    public ExtenderArgs decodeNodeCacheTrueFilter() {
        return WireDecoder.decodeExtenderArgs(nodeCacheTrueBody);
    }

    @Benchmark
    public ExtenderArgs decodeFullNodesFilter() {
        return WireDecoder.decodeExtenderArgs(fullNodesBody);
    }

    @Benchmark
    public byte[] encodeNodeNamesFilterResult() {
        return WireEncoder.encodeFilterResult(namesArgs, allNamesPass);
    }

    @Benchmark
    public byte[] encodeFullNodesFilterResult() {
        return WireEncoder.encodeFilterResult(fullArgs, allFullNodesPass);
    }
}
