package dev.muster.e2e;

import static dev.muster.e2e.Kube.K8S_GROUP;
import static dev.muster.e2e.Kube.K8S_VERSION;
import static dev.muster.e2e.Kube.SCHEDULER_NAME;
import static dev.muster.e2e.Kube.SP_GROUP;
import static dev.muster.e2e.Kube.SP_LABEL;
import static dev.muster.e2e.Kube.SP_VERSION;
import static dev.muster.e2e.Kube.call;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The other two gang APIs for {@link Kube}: Kubernetes' own PodGroups and Workloads ({@link Kube#K8S_GROUP}) and
 * scheduler-plugins' PodGroups ({@link Kube#SP_GROUP}), and pods naming their gang in any of the three ways. Every failure names what was attempted and the server's answer.
 */
final class KubeGangApis {
    private final ApiClient client;
    private final CoreV1Api core;
    private final CustomObjectsApi custom;

    KubeGangApis(ApiClient client, CoreV1Api core, CustomObjectsApi custom) {
        this.client = client;
        this.core = core;
        this.custom = custom;
    }

    /** A Kubernetes PodGroup with {@code schedulingPolicy.gang.minCount} (or {@code basic} when minCount is 0). */
    public void kubernetesPodGroup(String ns, String name, int minCount, Map<String, String> labels) {
        Map<String, Object> meta = new LinkedHashMap<>(Map.of("name", name, "namespace", ns, "labels", labels));
        Map<String, Object> policy = minCount > 0 ? Map.of("gang", Map.of("minCount", minCount)) : Map.of("basic", Map.of());
        Map<String, Object> pg = Map.of("apiVersion", K8S_GROUP + "/" + K8S_VERSION, "kind", "PodGroup", "metadata", meta,
                "spec", Map.of("schedulingPolicy", policy));
        call("create " + K8S_GROUP + " podgroup " + ns + "/" + name,
                () -> custom.createNamespacedCustomObject(K8S_GROUP, K8S_VERSION, ns, "podgroups", pg).execute());
    }

    /** A Kubernetes Workload with one gang template {@code template} of {@code minCount}. */
    public void workload(String ns, String name, String template, int minCount) {
        Map<String, Object> w = Map.of("apiVersion", K8S_GROUP + "/" + K8S_VERSION, "kind", "Workload",
                "metadata", Map.of("name", name, "namespace", ns), "spec", Map.of("podGroupTemplates",
                        List.of(Map.of("name", template, "schedulingPolicy", Map.of("gang", Map.of("minCount", minCount))))));
        call("create workload " + ns + "/" + name, () -> custom.createNamespacedCustomObject(K8S_GROUP, K8S_VERSION, ns, "workloads", w).execute());
    }

    public void deleteWorkload(String ns, String name) {
        call("delete workload " + ns + "/" + name,
                () -> custom.deleteNamespacedCustomObject(K8S_GROUP, K8S_VERSION, ns, "workloads", name).execute());
    }

    /** A Kubernetes PodGroup made from Workload {@code workload}'s template {@code template}, as a job controller makes it. */
    public void kubernetesPodGroupFromTemplate(String ns, String name, int minCount, String workload, String template) {
        Map<String, Object> pg = Map.of("apiVersion", K8S_GROUP + "/" + K8S_VERSION, "kind", "PodGroup",
                "metadata", Map.of("name", name, "namespace", ns), "spec", Map.of(
                        "podGroupTemplateRef", Map.of("workload", Map.of("workloadName", workload, "podGroupTemplateName", template)),
                        "schedulingPolicy", Map.of("gang", Map.of("minCount", minCount))));
        call("create " + K8S_GROUP + " podgroup " + ns + "/" + name,
                () -> custom.createNamespacedCustomObject(K8S_GROUP, K8S_VERSION, ns, "podgroups", pg).execute());
    }

    /** Merge-patches a scheduler-plugins PodGroup's {@code spec.minMember} (mutable there). */
    public void patchSchedulerPluginsMinMember(String ns, String name, int minMember) {
        var body = new io.kubernetes.client.custom.V1Patch("{\"spec\":{\"minMember\":" + minMember + "}}");
        call("patch " + SP_GROUP + " podgroup " + ns + "/" + name, () -> io.kubernetes.client.util.PatchUtils.patch(Object.class,
                () -> custom.patchNamespacedCustomObject(SP_GROUP, SP_VERSION, ns, "podgroups", name, body).buildCall(null),
                io.kubernetes.client.custom.V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** A scheduler-plugins PodGroup with {@code minMember} and further spec fields. */
    public void schedulerPluginsPodGroup(String ns, String name, int minMember, Map<String, Object> moreSpec) {
        Map<String, Object> spec = new LinkedHashMap<>(moreSpec);
        spec.put("minMember", minMember);
        Map<String, Object> pg = Map.of("apiVersion", SP_GROUP + "/" + SP_VERSION, "kind", "PodGroup",
                "metadata", Map.of("name", name, "namespace", ns), "spec", spec);
        call("create " + SP_GROUP + " podgroup " + ns + "/" + name,
                () -> custom.createNamespacedCustomObject(SP_GROUP, SP_VERSION, ns, "podgroups", pg).execute());
    }

    @SuppressWarnings("unchecked")
    public Map<String, Object> object(String group, String version, String ns, String plural, String name) {
        return (Map<String, Object>) call("get " + plural + "." + group + " " + ns + "/" + name,
                () -> custom.getNamespacedCustomObject(group, version, ns, plural, name).execute());
    }

    /**
     * A pod for Muster's scheduler that names its gang in any of the three ways: {@code annotationGroup} (Volcano),
     * {@code labelGroup} (scheduler-plugins), {@code schedulingGroup} (Kubernetes); null leaves a way out.
     */
    public V1Pod podIn(String ns, String name, String annotationGroup, String labelGroup, String schedulingGroup, String cpu, String memory) {
        V1ObjectMeta meta = new V1ObjectMeta().name(name).namespace(ns);
        if (annotationGroup != null) {
            meta.putAnnotationsItem("scheduling.k8s.io/group-name", annotationGroup);
        }
        if (labelGroup != null) {
            meta.putLabelsItem(SP_LABEL, labelGroup);
        }
        V1PodSpec spec = new V1PodSpec().schedulerName(SCHEDULER_NAME).terminationGracePeriodSeconds(0L).overhead(null)
                .containers(List.of(new V1Container().name("main").image("registry.example/job:1")
                        .resources(new V1ResourceRequirements().requests(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory))))));
        if (schedulingGroup != null) {
            spec.schedulingGroup(new io.kubernetes.client.openapi.models.V1PodSchedulingGroup().podGroupName(schedulingGroup));
        }
        V1Pod pod = new V1Pod().metadata(meta).spec(spec);
        return call("create pod " + ns + "/" + name, () -> core.createNamespacedPod(ns, pod).execute());
    }
}
