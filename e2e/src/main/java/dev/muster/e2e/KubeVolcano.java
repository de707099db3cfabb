package dev.muster.e2e;

import static dev.muster.e2e.Kube.GROUP;
import static dev.muster.e2e.Kube.VERSION;
import static dev.muster.e2e.Kube.call;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Volcano Queues and PodGroups for {@link Kube}: created, patched and read as a cluster admin or a job does. Every
 * failure names what was attempted and the server's answer.
 */
final class KubeVolcano {
    private final ApiClient client;
    private final CustomObjectsApi custom;

    KubeVolcano(ApiClient client, CustomObjectsApi custom) {
        this.client = client;
        this.custom = custom;
    }

    public void queue(String name, Map<String, Object> spec) {
        Map<String, Object> q = Map.of("apiVersion", GROUP + "/" + VERSION, "kind", "Queue", "metadata", Map.of("name", name), "spec", spec);
        call("create queue " + name, () -> custom.createClusterCustomObject(GROUP, VERSION, "queues", q).execute());
    }

    /** Merge-patches a Queue's spec with {@code spec} (e.g. {@code {"state":"Open"}}), as a cluster admin edits it. */
    public void patchQueueSpec(String name, String specJson) {
        var body = new io.kubernetes.client.custom.V1Patch("{\"spec\":" + specJson + "}");
        call("patch queue " + name, () -> io.kubernetes.client.util.PatchUtils.patch(Object.class,
                () -> custom.patchClusterCustomObject(GROUP, VERSION, "queues", name, body).buildCall(null),
                io.kubernetes.client.custom.V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    public void podGroup(String ns, String name, int minMember, String queue, Map<String, String> annotations) {
        podGroup(ns, name, minMember, queue, annotations, Map.of());
    }

    /** A Volcano PodGroup with more spec fields ({@code moreSpec}, e.g. {@code networkTopology}). */
    public void podGroup(String ns, String name, int minMember, String queue, Map<String, String> annotations, Map<String, Object> moreSpec) {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("name", name);
        meta.put("namespace", ns);
        meta.put("annotations", annotations);
        Map<String, Object> spec = new LinkedHashMap<>(moreSpec);
        spec.put("minMember", minMember);
        spec.put("queue", queue);
        Map<String, Object> pg = Map.of("apiVersion", GROUP + "/" + VERSION, "kind", "PodGroup", "metadata", meta, "spec", spec);
        call("create podgroup " + ns + "/" + name, () -> custom.createNamespacedCustomObject(GROUP, VERSION, ns, "podgroups", pg).execute());
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> podGroupObject(String ns, String name) {
        return (Map<String, Object>) call("get podgroup " + ns + "/" + name,
                () -> custom.getNamespacedCustomObject(GROUP, VERSION, ns, "podgroups", name).execute());
    }

    /** The namespace's Volcano PodGroups, as the API server returns them. */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> podGroupObjects(String ns) {
        Map<String, Object> list = (Map<String, Object>) call("list podgroups in " + ns,
                () -> custom.listNamespacedCustomObject(GROUP, VERSION, ns, "podgroups").execute());
        return (List<Map<String, Object>>) list.getOrDefault("items", List.of());
    }

    /**
     * Deletes the Queues named {@code name} or {@code name-…}: Queues are cluster-scoped and outlive a test's namespace,
     * and one left behind (a guarantee above all) would count in every later test's fair shares on the same cluster.
     */
    @SuppressWarnings("unchecked")
    public void deleteQueuesOf(String name) {
        Map<String, Object> list = (Map<String, Object>) call("list queues", () -> custom.listClusterCustomObject(GROUP, VERSION, "queues").execute());
        for (Map<String, Object> q : (List<Map<String, Object>>) list.getOrDefault("items", List.of())) {
            String n = String.valueOf(((Map<String, Object>) q.get("metadata")).get("name"));
            if (n.equals(name) || n.startsWith(name + "-")) {
                call("delete queue " + n, () -> custom.deleteClusterCustomObject(GROUP, VERSION, "queues", n).execute());
            }
        }
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> queueObject(String name) {
        return (Map<String, Object>) call("get queue " + name, () -> custom.getClusterCustomObject(GROUP, VERSION, "queues", name).execute());
    }
}
