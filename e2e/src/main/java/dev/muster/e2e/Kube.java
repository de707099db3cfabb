package dev.muster.e2e;

import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.custom.V1Patch;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import io.kubernetes.client.openapi.models.CoreV1Event;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1Namespace;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1ServiceAccount;
import io.kubernetes.client.util.PatchUtils;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Set-up and observation against a real API server through client-java's typed and generic APIs: fake Ready
 * nodes, namespaces (with the {@code default} ServiceAccount no controller creates here), Volcano PodGroups and
 * Queues, gang member pods, statuses, events. Every failure names what was attempted and the server's answer. Pods
 * and namespaces are done here; each other kind by its own helper ({@link KubeNodes}, {@link KubeVolcano},
 * {@link KubeGangApis}, {@link KubeCrds}), to which the methods of its section hand the call.
 */
public final class Kube {
    public static final String GROUP = "scheduling.volcano.sh";
    public static final String VERSION = "v1beta1";
    public static final String SCHEDULER_NAME = "muster";

    private final ApiClient client;
    private final CoreV1Api core;
    private final CustomObjectsApi custom;
    private final KubeNodes kubeNodes;
    private final KubeVolcano volcano;
    private final KubeGangApis gangApis;
    private final KubeCrds crds;

    public Kube(ApiClient client) {
        this.client = client;
        this.core = new CoreV1Api(client);
        this.custom = new CustomObjectsApi(client);
        this.kubeNodes = new KubeNodes(client, core);
        this.volcano = new KubeVolcano(client, custom);
        this.gangApis = new KubeGangApis(client, core, custom);
        this.crds = new KubeCrds(client, custom);
    }

    public CoreV1Api core() {
        return core;
    }

    public CustomObjectsApi custom() {
        return custom;
    }

    @FunctionalInterface
    public interface Call<T> {
        T run() throws ApiException;
    }

    /** Runs a client-java call; an ApiException becomes an IllegalStateException with the server's answer. */
    public static <T> T call(String what, Call<T> c) {
        try {
            return c.run();
        } catch (ApiException e) {
            throw new IllegalStateException(what + ": HTTP " + e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    // ---- nodes: KubeNodes -------------------------------------------------------------------------------

    public void node(String name, String cpu, String memory, Map<String, String> labels) {
        kubeNodes.node(name, cpu, memory, labels);
    }

    public void untaint(String name) {
        kubeNodes.untaint(name);
    }

    public void allocatable(String name, String cpu, String memory) {
        kubeNodes.allocatable(name, cpu, memory);
    }

    public void labelNode(String name, String key, String value) {
        kubeNodes.labelNode(name, key, value);
    }

    public void nodes(String prefix, int count, String cpu, String memory) {
        kubeNodes.nodes(prefix, count, cpu, memory);
    }

    // ---- namespaces ----------------------------------------------------------------------------------

    /**
     * A namespace with its {@code default} ServiceAccount (pods are refused without it): created here unless
     * kube-controller-manager's ServiceAccount controller made it first.
     */
    public String namespace(String name) {
        call("create namespace " + name, () -> core.createNamespace(new V1Namespace().metadata(new V1ObjectMeta().name(name))).execute());
        try {
            core.createNamespacedServiceAccount(name, new V1ServiceAccount().metadata(new V1ObjectMeta().name("default"))).execute();
        } catch (ApiException e) {
            if (e.getCode() != 409) {
                throw new IllegalStateException("create default service account in " + name + ": HTTP " + e.getCode() + " "
                        + e.getResponseBody(), e);
            }
        }
        return name;
    }

    /** Deletes a namespace (the namespace controller then deletes everything in it, and the namespace last). */
    public void deleteNamespace(String name) {
        call("delete namespace " + name, () -> core.deleteNamespace(name).execute());
    }

    /** Whether the namespace still exists (a deleted one stays, terminating, until it is empty). */
    public boolean namespaceExists(String name) {
        try {
            core.readNamespace(name).execute();
            return true;
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return false;
            }
            throw new IllegalStateException("read namespace " + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    // ---- Volcano queues and podgroups: KubeVolcano ---------------------------------------------------

    public void queue(String name, Map<String, Object> spec) {
        volcano.queue(name, spec);
    }

    public void patchQueueSpec(String name, String specJson) {
        volcano.patchQueueSpec(name, specJson);
    }

    /** Deletes the Queues named {@code name} or {@code name-…} (a test's own). */
    public void deleteQueuesOf(String name) {
        volcano.deleteQueuesOf(name);
    }

    public void podGroup(String ns, String name, int minMember, String queue, Map<String, String> annotations) {
        volcano.podGroup(ns, name, minMember, queue, annotations);
    }

    public void podGroup(String ns, String name, int minMember, String queue, Map<String, String> annotations, Map<String, Object> moreSpec) {
        volcano.podGroup(ns, name, minMember, queue, annotations, moreSpec);
    }

    public Map<String, Object> podGroupObject(String ns, String name) {
        return volcano.podGroupObject(ns, name);
    }

    public List<Map<String, Object>> podGroupObjects(String ns) {
        return volcano.podGroupObjects(ns);
    }

    public Map<String, Object> queueObject(String name) {
        return volcano.queueObject(name);
    }

    /** The object's status.conditions as "Type=Status Reason: message" lines. */
    @SuppressWarnings("unchecked")
    public static List<String> conditionLines(Map<String, Object> object) {
        Object cs = status(object).get("conditions");
        List<String> out = new java.util.ArrayList<>();
        if (cs instanceof List<?> list) {
            for (Object o : list) {
                Map<String, Object> c = (Map<String, Object>) o;
                out.add(c.get("type") + "=" + c.get("status") + " " + c.get("reason") + ": " + c.get("message"));
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> status(Map<String, Object> object) {
        Object s = object.get("status");
        return s instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    // ---- pods -------------------------------------------------------------------------------------------

    /** A pod for Muster's scheduler, in gang {@code group} (null: a single pod). */
    public V1Pod pod(String ns, String name, String group, String cpu, String memory) {
        return pod(ns, name, group, cpu, memory, SCHEDULER_NAME, null);
    }

    public V1Pod pod(String ns, String name, String group, String cpu, String memory, String schedulerName, String nodeName) {
        V1Pod pod = podObject(ns, name, group, cpu, memory, schedulerName, nodeName);
        return call("create pod " + ns + "/" + name, () -> core.createNamespacedPod(ns, pod).execute());
    }

    /** The pod {@link #pod} creates, not yet created. */
    public static V1Pod podObject(String ns, String name, String group, String cpu, String memory, String schedulerName, String nodeName) {
        Map<String, String> annotations = group == null ? Map.of() : Map.of("scheduling.k8s.io/group-name", group);
        return new V1Pod().metadata(new V1ObjectMeta().name(name).namespace(ns).annotations(annotations))
                .spec(new V1PodSpec().schedulerName(schedulerName).nodeName(nodeName).terminationGracePeriodSeconds(0L).overhead(null)
                        .containers(List.of(new V1Container().name("main").image("registry.example/job:1")
                                .resources(new V1ResourceRequirements().requests(Map.of("cpu", new Quantity(cpu), "memory", new Quantity(memory)))))));
    }

    /** Whether a container of {@code pod} requests {@code muster.dev/gang} (added by the chart's admission policy). */
    public static boolean gangMarked(V1Pod pod) {
        return pod.getSpec().getContainers().stream().anyMatch(c -> c.getResources() != null && c.getResources().getRequests() != null
                && c.getResources().getRequests().containsKey(GANG_MARKER));
    }

    /** The extended resource the chart's admission policy adds to gang members. */
    public static final String GANG_MARKER = dev.muster.core.resources.ResourceNames.GANG_MARKER;

    /** The pod as the API server has it now. */
    public V1Pod readPod(String ns, String name) {
        return call("read pod " + ns + "/" + name, () -> core.readNamespacedPod(name, ns).execute());
    }

    /** Creates {@code count} members {@code group-<from>..} of a gang. */
    public void members(String ns, String group, int from, int count, String cpu, String memory) {
        for (int i = from; i < from + count; i++) {
            pod(ns, group + "-" + i, group, cpu, memory);
        }
    }

    /** The pods of {@code ns} matching {@code labelSelector} (e.g. {@code job=train}). */
    public List<V1Pod> pods(String ns, String labelSelector) {
        return call("list pods " + labelSelector + " in " + ns, () -> core.listNamespacedPod(ns).labelSelector(labelSelector).execute()).getItems();
    }

    public List<V1Pod> pods(String ns) {
        return call("list pods in " + ns, () -> core.listNamespacedPod(ns).execute()).getItems();
    }

    /** Pod name → node, for the pods of {@code ns} whose name starts with {@code prefix} and that are bound. */
    public Map<String, String> bound(String ns, String prefix) {
        Map<String, String> out = new LinkedHashMap<>();
        for (V1Pod p : pods(ns)) {
            if (p.getMetadata().getName().startsWith(prefix) && p.getSpec().getNodeName() != null) {
                out.put(p.getMetadata().getName(), p.getSpec().getNodeName());
            }
        }
        return out;
    }

    /** Deletes at once (grace period 0): without a kubelet a bound pod would otherwise stay Terminating. */
    public void deleteNow(String ns, String name) {
        call("delete pod " + ns + "/" + name, () -> core.deleteNamespacedPod(name, ns).gracePeriodSeconds(0).execute());
    }

    /** Sets (or, with null, clears) the pod's finalizers: a pod with one stays, terminating, after its delete. */
    /** Sets the pod's finalizers ({@code null}: none); a pod gone meanwhile needs none. */
    public void finalizer(String ns, String name, String finalizer) {
        String list = finalizer == null ? "null" : "[\"" + finalizer + "\"]";
        try {
            PatchUtils.patch(V1Pod.class,
                    () -> core.patchNamespacedPod(name, ns, new V1Patch("{\"metadata\":{\"finalizers\":" + list + "}}")).buildCall(null),
                    V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client);
        } catch (ApiException e) {
            if (e.getCode() != 404) {
                throw new IllegalStateException("set finalizers of " + ns + "/" + name + ": HTTP " + e.getCode() + " " + e.getResponseBody(), e);
            }
        }
    }

    /** Deletes with the default grace period (a pod with a finalizer becomes terminating and stays). */
    public void delete(String ns, String name) {
        call("delete pod " + ns + "/" + name, () -> core.deleteNamespacedPod(name, ns).execute());
    }

    /**
     * Sets a running pod's {@code spec.activeDeadlineSeconds} (it may be set or shortened on a live pod): its kubelet then
     * kills it and reports it {@code Failed} with reason {@code DeadlineExceeded} — a real failure, reported by the kubelet.
     */
    /** Removes every scheduling gate of the pod: kube-scheduler tries it from now on. */
    public void ungate(String ns, String name) {
        call("ungate pod " + ns + "/" + name, () -> PatchUtils.patch(V1Pod.class,
                () -> core.patchNamespacedPod(name, ns, new V1Patch("{\"spec\":{\"schedulingGates\":null}}")).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    public void activeDeadline(String ns, String name, long seconds) {
        call("set activeDeadlineSeconds of " + ns + "/" + name, () -> PatchUtils.patch(V1Pod.class,
                () -> core.patchNamespacedPod(name, ns, new V1Patch("{\"spec\":{\"activeDeadlineSeconds\":" + seconds + "}}")).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** Sets a pod's phase through the status subresource, as a kubelet would. */
    public void phase(String ns, String name, String phase) {
        call("set phase of " + ns + "/" + name, () -> PatchUtils.patch(V1Pod.class,
                () -> core.patchNamespacedPodStatus(name, ns, new V1Patch("{\"status\":{\"phase\":\"" + phase + "\"}}")).buildCall(null),
                V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** Sets the pod's owner (a made-up Job: no controller runs here to act on it), as a job controller's pods have one. */
    public void owner(String ns, String pod, String ownerName) {
        var body = new io.kubernetes.client.custom.V1Patch("{\"metadata\":{\"ownerReferences\":[{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\","
                + "\"name\":\"" + ownerName + "\",\"uid\":\"00000000-0000-0000-0000-000000000001\"}]}}");
        call("set owner of pod " + ns + "/" + pod, () -> io.kubernetes.client.util.PatchUtils.patch(V1Pod.class,
                () -> core.patchNamespacedPod(pod, ns, body).buildCall(null), io.kubernetes.client.custom.V1Patch.PATCH_FORMAT_JSON_MERGE_PATCH, client));
    }

    /** Messages of the events about one object. */
    public List<String> events(String ns, String objectName) {
        List<String> out = new ArrayList<>();
        for (CoreV1Event e : call("list events in " + ns, () -> core.listNamespacedEvent(ns)
                .fieldSelector("involvedObject.name=" + objectName).execute()).getItems()) {
            out.add(e.getReason() + ": " + e.getMessage());
        }
        return out;
    }

    /** {@code reason: note} of the events about one object that {@code reportingController} reported. */
    public List<String> eventsFrom(String ns, String objectName, String reportingController) {
        List<String> out = new ArrayList<>();
        for (CoreV1Event e : call("list events in " + ns, () -> core.listNamespacedEvent(ns)
                .fieldSelector("involvedObject.name=" + objectName).execute()).getItems()) {
            if (reportingController.equals(e.getReportingComponent())) {
                out.add(e.getReason() + ": " + e.getMessage());
            }
        }
        return out;
    }

    // ---- the other two gang APIs -------------------------------------------------------------------------

    /** Kubernetes' own PodGroup API in 1.36 (with the GenericWorkload gate and the API enabled). */
    public static final String K8S_GROUP = "scheduling.k8s.io";
    public static final String K8S_VERSION = "v1alpha2";
    /** scheduler-plugins' coscheduling PodGroup. */
    public static final String SP_GROUP = "scheduling.x-k8s.io";
    public static final String SP_VERSION = "v1alpha1";
    public static final String SP_LABEL = "scheduling.x-k8s.io/pod-group";

    public void kubernetesPodGroup(String ns, String name, int minCount, Map<String, String> labels) {
        gangApis.kubernetesPodGroup(ns, name, minCount, labels);
    }

    public void workload(String ns, String name, String template, int minCount) {
        gangApis.workload(ns, name, template, minCount);
    }

    public void deleteWorkload(String ns, String name) {
        gangApis.deleteWorkload(ns, name);
    }

    public void kubernetesPodGroupFromTemplate(String ns, String name, int minCount, String workload, String template) {
        gangApis.kubernetesPodGroupFromTemplate(ns, name, minCount, workload, template);
    }

    public void patchSchedulerPluginsMinMember(String ns, String name, int minMember) {
        gangApis.patchSchedulerPluginsMinMember(ns, name, minMember);
    }

    public void schedulerPluginsPodGroup(String ns, String name, int minMember, Map<String, Object> moreSpec) {
        gangApis.schedulerPluginsPodGroup(ns, name, minMember, moreSpec);
    }

    public Map<String, Object> object(String group, String version, String ns, String plural, String name) {
        return gangApis.object(group, version, ns, plural, name);
    }

    public V1Pod podIn(String ns, String name, String annotationGroup, String labelGroup, String schedulingGroup, String cpu, String memory) {
        return gangApis.podIn(ns, name, annotationGroup, labelGroup, schedulingGroup, cpu, memory);
    }

    // ---- CustomResourceDefinitions: KubeCrds -----------------------------------------------------------

    public void crd(java.nio.file.Path yaml) {
        crds.crd(yaml);
    }

    public void crd(Map<String, Object> crd) {
        crds.crd(crd);
    }
}
