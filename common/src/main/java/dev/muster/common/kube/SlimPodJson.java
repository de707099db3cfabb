package dev.muster.common.kube;

import static dev.muster.common.kube.SlimJson.bool;
import static dev.muster.common.kube.SlimJson.integer;
import static dev.muster.common.kube.SlimJson.longValue;
import static dev.muster.common.kube.SlimJson.quantities;
import static dev.muster.common.kube.SlimJson.string;
import static dev.muster.common.kube.SlimJson.strings;
import static dev.muster.common.kube.SlimJson.time;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.muster.core.model.GangMembership;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1PodSchedulingGroup;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.util.Watch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads Pods from the API server's JSON in one streaming pass, keeping only what Muster's processes read
 * ({@link PodConverter} in the extender, the member counts in the controller): identity, resourceVersion, deletion
 * timestamp, owner references, the gang annotations ({@link GangMembership#isRelevant}), labels (all of a bound pod's,
 * only the gang label of any other: {@link #keptLabels}), node name, priority, {@code preemptionPolicy},
 * {@code terminationGracePeriodSeconds}, scheduler name, {@code spec.schedulingGroup}, container and init-container
 * names, restart policies and requests, overhead, pod-level requests, a pending pod's placement fields
 * ({@link SlimPodPlacement}: node selector, required node affinity, tolerations, scheduling gates),
 * {@code status.phase} and {@code status.nominatedNodeName}. Everything else (env, volumes, probes, managed
 * fields, conditions, other annotations) is skipped token by token without building anything.
 *
 * <p>Why: client-java decodes every watch event into a JSON tree, validates it field by field against the model,
 * and then builds the full {@code V1Pod} by reflection — on the real control plane that was about half of the
 * extender's CPU (docs/benchmarks.md, "Real loop"). This reader builds the same slim {@code V1Pod} the informers'
 * transforms used to cut down to, directly.
 *
 * <p>{@link SlimListerWatcher} asks the API server for protobuf ({@link SlimPodProto}, which builds exactly the same
 * objects) and uses this reader when the answer is JSON (an API server or proxy that does not serve protobuf).
 *
 * <p>Lenient about what it does not read; strict about what it does: a value of the wrong JSON type in a kept field
 * is an {@link IOException} naming the field (the informer's list or watch then fails and is retried, as for any
 * malformed answer). Stateless and thread-safe.
 */
public final class SlimPodJson {
    private SlimPodJson() {}

    /** A {@code PodList}: items and list metadata ({@code resourceVersion}, {@code continue}). */
    public static V1PodList readList(JsonReader in) throws IOException {
        SlimJson.ListParts<V1Pod> l = SlimJson.readList(in, SlimPodJson::readPod);
        return new V1PodList().apiVersion(l.apiVersion()).kind(l.kind()).metadata(l.metadata()).items(l.items());
    }

    /** One watch event as the informer receives it (a pod, or a status for {@code ERROR}). */
    public static Watch.Response<V1Pod> readWatchEvent(JsonReader in) throws IOException {
        SlimJson.Event<V1Pod> e = SlimJson.readEvent(in, SlimPodJson::readPod);
        return e.status() != null ? new Watch.Response<>(e.type(), e.status()) : new Watch.Response<>(e.type(), e.object());
    }

    /** One Pod object. */
    public static V1Pod readPod(JsonReader in) throws IOException {
        V1Pod pod = new V1Pod();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "apiVersion" -> pod.setApiVersion(string(in, "apiVersion"));
                case "kind" -> pod.setKind(string(in, "kind"));
                case "metadata" -> pod.setMetadata(meta(in));
                case "spec" -> pod.setSpec(spec(in));
                case "status" -> pod.setStatus(status(in));
                default -> in.skipValue();
            }
        }
        in.endObject();
        keptLabels(pod);
        SlimPodPlacement.trim(pod);
        return SlimPodSharing.share(pod);
    }

    /**
     * Cuts a pod's labels down to what Muster reads: a bound pod keeps them all (it may be a preemption victim, and the
     * PodDisruptionBudgets' selectors are matched against them); any other pod only gang membership's
     * ({@link GangMembership#isRelevantLabel}), so a long queue of pending pods costs no label memory.
     */
    static void keptLabels(V1Pod pod) {
        V1ObjectMeta m = pod.getMetadata();
        if (m == null || m.getLabels() == null) {
            return;
        }
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        if (node == null || node.isEmpty()) {
            m.setLabels(GangMembership.relevantLabelsOnly(m.getLabels()));
        }
    }

    private static V1ObjectMeta meta(JsonReader in) throws IOException {
        V1ObjectMeta m = new V1ObjectMeta();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "name" -> m.setName(string(in, "metadata.name"));
                case "namespace" -> m.setNamespace(string(in, "metadata.namespace"));
                case "uid" -> m.setUid(string(in, "metadata.uid"));
                case "resourceVersion" -> m.setResourceVersion(string(in, "metadata.resourceVersion"));
                case "deletionTimestamp" -> m.setDeletionTimestamp(time(in, "metadata.deletionTimestamp"));
                case "annotations" -> m.setAnnotations(strings(in, "metadata.annotations", GangMembership::isRelevant));
                case "labels" -> m.setLabels(strings(in, "metadata.labels", key -> true)); // trimmed by keptLabels
                case "ownerReferences" -> m.setOwnerReferences(owners(in));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return m;
    }

    private static V1PodSpec spec(JsonReader in) throws IOException {
        V1PodSpec s = new V1PodSpec();
        in.beginObject();
        while (in.hasNext()) {
            String field = in.nextName();
            switch (field) {
                case "nodeName" -> s.setNodeName(string(in, "spec.nodeName"));
                case "priority" -> s.setPriority(integer(in, "spec.priority"));
                case "preemptionPolicy" -> s.setPreemptionPolicy(string(in, "spec.preemptionPolicy"));
                case "terminationGracePeriodSeconds" -> s.setTerminationGracePeriodSeconds(longValue(in, "spec.terminationGracePeriodSeconds"));
                case "schedulerName" -> s.setSchedulerName(string(in, "spec.schedulerName"));
                case "containers" -> s.setContainers(containers(in, "spec.containers"));
                case "initContainers" -> s.setInitContainers(containers(in, "spec.initContainers"));
                case "overhead" -> s.setOverhead(quantities(in, "spec.overhead"));
                case "resources" -> s.setResources(requirements(in, "spec.resources"));
                case "schedulingGroup" -> s.setSchedulingGroup(schedulingGroup(in));
                default -> {
                    if (!SlimPodPlacementJson.read(field, in, s)) {
                        in.skipValue();
                    }
                }
            }
        }
        in.endObject();
        return s;
    }

    private static V1PodStatus status(JsonReader in) throws IOException {
        V1PodStatus s = new V1PodStatus();
        in.beginObject();
        while (in.hasNext()) {
            String name = in.nextName();
            if (name.equals("phase")) {
                s.setPhase(string(in, "status.phase"));
            } else if (name.equals("nominatedNodeName")) {
                s.setNominatedNodeName(string(in, "status.nominatedNodeName"));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return s;
    }

    private static List<V1Container> containers(JsonReader in, String where) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        List<V1Container> out = new ArrayList<>(2);
        in.beginArray();
        while (in.hasNext()) {
            V1Container c = new V1Container();
            in.beginObject();
            while (in.hasNext()) {
                switch (in.nextName()) {
                    case "name" -> c.setName(string(in, where + ".name"));
                    case "restartPolicy" -> c.setRestartPolicy(string(in, where + ".restartPolicy"));
                    case "resources" -> c.setResources(requirements(in, where + ".resources"));
                    case "ports" -> c.setPorts(hostPorts(in, where + ".ports"));
                    default -> in.skipValue();
                }
            }
            in.endObject();
            out.add(c);
        }
        in.endArray();
        return out;
    }

    /** The ports that take a port of the node ({@code hostPort}), or null when none does: kube-scheduler judges them. */
    private static List<V1ContainerPort> hostPorts(JsonReader in, String where) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        List<V1ContainerPort> out = null;
        in.beginArray();
        while (in.hasNext()) {
            Integer hostPort = null;
            in.beginObject();
            while (in.hasNext()) {
                if ("hostPort".equals(in.nextName())) {
                    hostPort = integer(in, where + ".hostPort");
                } else {
                    in.skipValue();
                }
            }
            in.endObject();
            out = SlimPodPlacement.add(out, SlimPodPlacement.hostPort(hostPort));
        }
        in.endArray();
        return out;
    }

    /** Requests only: limits do not count for placement. */
    private static V1ResourceRequirements requirements(JsonReader in, String where) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        Map<String, Quantity> requests = null;
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("requests")) {
                requests = quantities(in, where + ".requests");
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return requests == null ? null : new V1ResourceRequirements().requests(requests);
    }

    private static V1PodSchedulingGroup schedulingGroup(JsonReader in) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        V1PodSchedulingGroup g = new V1PodSchedulingGroup();
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("podGroupName")) {
                g.setPodGroupName(string(in, "spec.schedulingGroup.podGroupName"));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return g;
    }

    private static List<V1OwnerReference> owners(JsonReader in) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        List<V1OwnerReference> out = new ArrayList<>(1);
        in.beginArray();
        while (in.hasNext()) {
            V1OwnerReference o = new V1OwnerReference();
            in.beginObject();
            while (in.hasNext()) {
                switch (in.nextName()) {
                    case "apiVersion" -> o.setApiVersion(string(in, "metadata.ownerReferences.apiVersion"));
                    case "kind" -> o.setKind(string(in, "metadata.ownerReferences.kind"));
                    case "name" -> o.setName(string(in, "metadata.ownerReferences.name"));
                    case "uid" -> o.setUid(string(in, "metadata.ownerReferences.uid"));
                    case "controller" -> o.setController(bool(in, "metadata.ownerReferences.controller"));
                    default -> in.skipValue();
                }
            }
            in.endObject();
            out.add(o);
        }
        in.endArray();
        return out;
    }

}
