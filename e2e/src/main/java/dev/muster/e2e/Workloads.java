package dev.muster.e2e;

import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1DeleteOptions;
import io.kubernetes.client.util.PatchUtils;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The objects controllers act on — {@code batch/v1} Jobs, {@code apps/v1} Deployments, {@code policy/v1}
 * PodDisruptionBudgets — created and read as plain JSON maps (client-java's generic API), so fields newer than
 * client-java's models (a 1.36 API server's) pass through untouched. Pod templates are for Muster's scheduler and
 * sized for hollow nodes (millicores). Every failure names what was attempted and the server's answer.
 */
public final class Workloads {
    /** The pod annotation that joins a Volcano PodGroup. */
    public static final String GROUP_ANNOTATION = "scheduling.k8s.io/group-name";

    private final ApiClient client;
    private final CustomObjectsApi api;

    public Workloads(ApiClient client) {
        this.client = client;
        this.api = new CustomObjectsApi(client);
    }

    /**
     * What a Job's pods look like.
     *
     * @param podGroup         the Volcano PodGroup its pods join (annotation), or null for none
     * @param cpu              each pod's cpu request, e.g. {@code 100m}
     * @param memory           each pod's memory request, e.g. {@code 64Mi}
     * @param gracePeriodSeconds the pods' {@code terminationGracePeriodSeconds}
     * @param priorityClassName the pods' PriorityClass, or null for none
     * @param schedulingGates  the pods' scheduling gates (kube-scheduler does not try a gated pod), none when empty
     */
    public record PodTemplate(String podGroup, String cpu, String memory, long gracePeriodSeconds, String priorityClassName,
                              List<String> schedulingGates) {
        public PodTemplate {
            schedulingGates = schedulingGates == null ? List.of() : List.copyOf(schedulingGates);
        }

        public PodTemplate(String podGroup, String cpu, String memory, long gracePeriodSeconds) {
            this(podGroup, cpu, memory, gracePeriodSeconds, null, List.of());
        }

        public PodTemplate(String podGroup, String cpu, String memory, long gracePeriodSeconds, String priorityClassName) {
            this(podGroup, cpu, memory, gracePeriodSeconds, priorityClassName, List.of());
        }

        /** The same pods, held back from kube-scheduler by the scheduling gate {@code gate} until it is removed. */
        public PodTemplate gated(String gate) {
            return new PodTemplate(podGroup, cpu, memory, gracePeriodSeconds, priorityClassName, List.of(gate));
        }

        Map<String, Object> toJson(Map<String, String> labels) {
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put("labels", labels);
            if (podGroup != null) {
                meta.put("annotations", Map.of(GROUP_ANNOTATION, podGroup));
            }
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("schedulerName", Kube.SCHEDULER_NAME);
            spec.put("restartPolicy", labels.containsKey("job") ? "Never" : "Always");
            spec.put("terminationGracePeriodSeconds", gracePeriodSeconds);
            if (priorityClassName != null) {
                spec.put("priorityClassName", priorityClassName);
            }
            if (!schedulingGates.isEmpty()) {
                spec.put("schedulingGates", schedulingGates.stream().map(g -> Map.of("name", g)).toList());
            }
            spec.put("containers", List.of(Map.of("name", "main", "image", "registry.example/job:1",
                    "resources", Map.of("requests", Map.of("cpu", cpu, "memory", memory)))));
            return Map.of("metadata", meta, "spec", spec);
        }
    }

    // ---- Jobs -----------------------------------------------------------------------------------------------

    /**
     * An Indexed Job of {@code parallelism} pods and as many completions; its pods carry the label {@code job=<name>}.
     * A failed pod is replaced, up to 6 times per index ({@code backoffLimitPerIndex}: the Job controller's delay before
     * a replacement, 10 s doubling, grows with that index's failures, not the whole Job's — with a Job-wide
     * {@code backoffLimit} a node's death that fails 4 members at once delays their replacements by over a minute).
     */
    public Map<String, Object> indexedJob(String ns, String name, int parallelism, PodTemplate pods, boolean suspend) {
        return indexedJob(ns, name, parallelism, parallelism, pods, suspend);
    }

    /**
     * As {@link #indexedJob(String, String, int, PodTemplate, boolean)}, with {@code completions} indexes of which
     * {@code parallelism} run at once: a hollow kubelet's pods exit 0 when they are stopped (evicted, say), which the Job
     * counts as completions, and it makes pods for the indexes still to complete.
     */
    public Map<String, Object> indexedJob(String ns, String name, int parallelism, int completions, PodTemplate pods, boolean suspend) {
        return indexedJob(ns, name, parallelism, completions, pods, suspend, Map.of());
    }

    /** As {@link #indexedJob(String, String, int, int, PodTemplate, boolean)}, with {@code podSpec} (affinity, say) added to its pods' spec. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> indexedJob(String ns, String name, int parallelism, int completions, PodTemplate pods, boolean suspend,
                                          Map<String, Object> podSpec) {
        Map<String, Object> template = pods.toJson(Map.of("job", name));
        ((Map<String, Object>) template.get("spec")).putAll(podSpec);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("parallelism", parallelism);
        spec.put("completions", completions);
        spec.put("completionMode", "Indexed");
        spec.put("backoffLimitPerIndex", 6);
        spec.put("suspend", suspend);
        spec.put("template", template);
        Map<String, Object> job = Map.of("apiVersion", "batch/v1", "kind", "Job", "metadata", Map.of("name", name, "namespace", ns), "spec", spec);
        return create("batch", "v1", ns, "jobs", job);
    }

    public Map<String, Object> job(String ns, String name) {
        return get("batch", "v1", ns, "jobs", name);
    }

    /** Sets the Job's {@code spec.suspend}, as Kueue does. */
    public void suspend(String ns, String name, boolean suspend) {
        patch("batch", "v1", ns, "jobs", name, "{\"spec\":{\"suspend\":" + suspend + "}}");
    }

    /**
     * Deletes a Job with {@code propagation} {@code Background} (the Job goes at once, the garbage collector deletes
     * its pods after) or {@code Foreground} (the Job stays, with a finalizer, until its pods are gone).
     */
    public void deleteJob(String ns, String name, String propagation) {
        Kube.call("delete job " + ns + "/" + name, () -> api.deleteNamespacedCustomObject("batch", "v1", ns, "jobs", name)
                .body(new V1DeleteOptions().propagationPolicy(propagation)).execute());
    }

    /** Whether the Job exists. */
    public boolean jobExists(String ns, String name) {
        return exists("batch", "v1", ns, "jobs", name);
    }

    // ---- Deployments ------------------------------------------------------------------------------------------

    /** A Deployment of {@code replicas} single pods (no gang) for Muster's scheduler; pods labelled {@code app=<name>}. */
    public Map<String, Object> deployment(String ns, String name, int replicas, PodTemplate pods) {
        return deployment(ns, name, replicas, pods, Map.of());
    }

    /** As {@link #deployment(String, String, int, PodTemplate)}, with {@code podSpec} (a nodeSelector, say) added to its pods' spec. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> deployment(String ns, String name, int replicas, PodTemplate pods, Map<String, Object> podSpec) {
        Map<String, Object> template = pods.toJson(Map.of("app", name));
        ((Map<String, Object>) template.get("spec")).putAll(podSpec);
        Map<String, Object> spec = Map.of("replicas", replicas, "selector", Map.of("matchLabels", Map.of("app", name)),
                "template", template);
        return create("apps", "v1", ns, "deployments", Map.of("apiVersion", "apps/v1", "kind", "Deployment",
                "metadata", Map.of("name", name, "namespace", ns), "spec", spec));
    }

    public void scale(String ns, String deployment, int replicas) {
        patch("apps", "v1", ns, "deployments", deployment, "{\"spec\":{\"replicas\":" + replicas + "}}");
    }

    // ---- PodDisruptionBudgets ----------------------------------------------------------------------------------

    public void podDisruptionBudget(String ns, String name, Map<String, String> selector, int minAvailable) {
        create("policy", "v1", ns, "poddisruptionbudgets", Map.of("apiVersion", "policy/v1", "kind", "PodDisruptionBudget",
                "metadata", Map.of("name", name, "namespace", ns),
                "spec", Map.of("minAvailable", minAvailable, "selector", Map.of("matchLabels", selector))));
    }

    /** A PodDisruptionBudget by {@code maxUnavailable} (the other form: {@link #podDisruptionBudget(String, String, Map, int)}). */
    public void podDisruptionBudgetMaxUnavailable(String ns, String name, Map<String, String> selector, int maxUnavailable) {
        create("policy", "v1", ns, "poddisruptionbudgets", Map.of("apiVersion", "policy/v1", "kind", "PodDisruptionBudget",
                "metadata", Map.of("name", name, "namespace", ns),
                "spec", Map.of("maxUnavailable", maxUnavailable, "selector", Map.of("matchLabels", selector))));
    }

    public Map<String, Object> podDisruptionBudget(String ns, String name) {
        return get("policy", "v1", ns, "poddisruptionbudgets", name);
    }

    public void deletePodDisruptionBudget(String ns, String name) {
        Kube.call("delete poddisruptionbudget " + ns + "/" + name,
                () -> api.deleteNamespacedCustomObject("policy", "v1", ns, "poddisruptionbudgets", name).execute());
    }

    // ---- PriorityClasses ---------------------------------------------------------------------------------------

    /**
     * A PriorityClass (cluster-wide; kept if it exists already: tests of one JVM share it) of {@code value} with
     * {@code preemptionPolicy} {@code PreemptLowerPriority} or {@code Never}.
     */
    public void priorityClass(String name, int value, String preemptionPolicy) {
        Map<String, Object> body = Map.of("apiVersion", "scheduling.k8s.io/v1", "kind", "PriorityClass", "metadata", Map.of("name", name),
                "value", value, "preemptionPolicy", preemptionPolicy);
        try {
            api.createClusterCustomObject("scheduling.k8s.io", "v1", "priorityclasses", body).execute();
        } catch (io.kubernetes.client.openapi.ApiException e) {
            if (e.getCode() != 409) {
                throw new IllegalStateException("create PriorityClass " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(), e);
            }
        }
    }

    // ---- generic --------------------------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    public Map<String, Object> get(String group, String version, String ns, String plural, String name) {
        return (Map<String, Object>) Kube.call("get " + plural + "." + group + " " + ns + "/" + name,
                () -> api.getNamespacedCustomObject(group, version, ns, plural, name).execute());
    }

    /** The items of a namespaced list, e.g. ("scheduling.k8s.io", "v1alpha2", ns, "workloads"). */
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> list(String group, String version, String ns, String plural) {
        Map<String, Object> list = (Map<String, Object>) Kube.call("list " + plural + "." + group + " in " + ns,
                () -> api.listNamespacedCustomObject(group, version, ns, plural).execute());
        Object items = list.get("items");
        return items == null ? List.of() : (List<Map<String, Object>>) items;
    }

    private boolean exists(String group, String version, String ns, String plural, String name) {
        try {
            api.getNamespacedCustomObject(group, version, ns, plural, name).execute();
            return true;
        } catch (io.kubernetes.client.openapi.ApiException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw new IllegalStateException("get " + plural + "." + group + " " + ns + "/" + name + ": HTTP " + e.getCode() + " "
                    + e.getResponseBody(), e);
        }
    }

    /** Whether the cluster-scoped object exists, e.g. ("apiextensions.k8s.io", "v1", "customresourcedefinitions", name). */
    public boolean clusterObjectExists(String group, String version, String plural, String name) {
        try {
            api.getClusterCustomObject(group, version, plural, name).execute();
            return true;
        } catch (io.kubernetes.client.openapi.ApiException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw new IllegalStateException("get " + plural + "." + group + " " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    /** Creates a namespaced object of any group but the core one (e.g. a batch/v1 Job, a custom resource) as written; returns what the API server stored. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> create(String group, String version, String ns, String plural, Map<String, Object> object) {
        return (Map<String, Object>) Kube.call("create " + plural + "." + group + " in " + ns,
                () -> api.createNamespacedCustomObject(group, version, ns, plural, object).execute());
    }

    private void patch(String group, String version, String ns, String plural, String name, String mergePatch) {
        Kube.call("patch " + plural + "." + group + " " + ns + "/" + name, () -> PatchUtils.patch(Object.class,
                () -> api.patchNamespacedCustomObject(group, version, ns, plural, name, new V1Patch(mergePatch)).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** A field of a JSON map by path, or null. */
    @SuppressWarnings("unchecked")
    public static Object field(Map<String, Object> object, String... path) {
        Object at = object;
        for (String p : path) {
            if (!(at instanceof Map<?, ?> m)) {
                return null;
            }
            at = ((Map<String, Object>) m).get(p);
        }
        return at;
    }
}
