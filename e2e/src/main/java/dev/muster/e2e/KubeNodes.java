package dev.muster.e2e;

import static dev.muster.e2e.Kube.call;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.util.PatchUtils;
import java.util.HashMap;
import java.util.Map;

/**
 * Fake Ready nodes for {@link Kube}: created, untainted, resized and labelled as a kubelet and the node lifecycle
 * controller would. Every failure names what was attempted and the server's answer.
 */
final class KubeNodes {
    private final ApiClient client;
    private final CoreV1Api core;

    KubeNodes(ApiClient client, CoreV1Api core) {
        this.client = client;
        this.core = core;
    }

    /** Creates a Ready node with {@code cpu}/{@code memory} allocatable (and 110 pods), without the not-ready taint. */
    public void node(String name, String cpu, String memory, Map<String, String> labels) {
        Map<String, String> l = new HashMap<>(labels);
        l.put("kubernetes.io/hostname", name);
        call("create node " + name, () -> core.createNode(new V1Node().metadata(new V1ObjectMeta().name(name).labels(l))).execute());
        String now = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
        String status = "{\"status\":{\"capacity\":{\"cpu\":\"" + cpu + "\",\"memory\":\"" + memory + "\",\"pods\":\"110\"},"
                + "\"allocatable\":{\"cpu\":\"" + cpu + "\",\"memory\":\"" + memory + "\",\"pods\":\"110\"},"
                + "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"fake\","
                + "\"lastHeartbeatTime\":\"" + now + "\",\"lastTransitionTime\":\"" + now + "\"}]}}";
        call("set status of node " + name, () -> PatchUtils.patch(V1Node.class,
                () -> core.patchNodeStatus(name, new V1Patch(status)).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
        // the API server taints new nodes not-ready; the node lifecycle controller (absent here) would lift it
        call("untaint node " + name, () -> PatchUtils.patch(V1Node.class,
                () -> core.patchNode(name, new V1Patch("{\"spec\":{\"taints\":null}}")).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** Removes a node's taints, as the node lifecycle controller lifts the not-ready taint once a kubelet's node is Ready. */
    public void untaint(String name) {
        call("untaint node " + name, () -> PatchUtils.patch(V1Node.class,
                () -> core.patchNode(name, new V1Patch("{\"spec\":{\"taints\":null}}")).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** Sets a node's allocatable (and capacity) cpu and memory, as a kubelet that reserved more or less would. */
    public void allocatable(String name, String cpu, String memory) {
        String status = "{\"status\":{\"capacity\":{\"cpu\":\"" + cpu + "\",\"memory\":\"" + memory + "\"},"
                + "\"allocatable\":{\"cpu\":\"" + cpu + "\",\"memory\":\"" + memory + "\"}}}";
        call("set allocatable of node " + name, () -> PatchUtils.patch(V1Node.class,
                () -> core.patchNodeStatus(name, new V1Patch(status)).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** Sets (or, with a null value, removes) one label of a node. */
    public void labelNode(String name, String key, String value) {
        String patch = "{\"metadata\":{\"labels\":{\"" + key + "\":" + (value == null ? "null" : "\"" + value + "\"") + "}}}";
        call("label node " + name, () -> PatchUtils.patch(V1Node.class,
                () -> core.patchNode(name, new V1Patch(patch)).buildCall(null), V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    public void nodes(String prefix, int count, String cpu, String memory) {
        for (int i = 0; i < count; i++) {
            node(prefix + i, cpu, memory, Map.of());
        }
    }
}
