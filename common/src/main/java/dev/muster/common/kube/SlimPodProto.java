package dev.muster.common.kube;

import static dev.muster.common.kube.SlimProto.bool;
import static dev.muster.common.kube.SlimProto.int32;
import static dev.muster.common.kube.SlimProto.int64;
import static dev.muster.common.kube.SlimProto.message;
import static dev.muster.common.kube.SlimProto.omitEmpty;
import static dev.muster.common.kube.SlimProto.quantityEntry;
import static dev.muster.common.kube.SlimProto.skip;
import static dev.muster.common.kube.SlimProto.string;
import static dev.muster.common.kube.SlimProto.stringEntry;
import static dev.muster.common.kube.SlimProto.tag;
import static dev.muster.common.kube.SlimProto.time;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import dev.muster.core.model.GangMembership;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
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
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads Pods from the API server's protobuf encoding into exactly the slim {@code V1Pod} that {@link SlimPodJson}
 * builds from JSON — the same fields kept, the same nulls where nothing was kept (see {@link SlimPodJson} for what and
 * why). Fields not kept are skipped by length without being decoded: a pod's managed fields, volumes, env and the
 * other annotations cost nothing but the bytes the API server sent. Wire format and errors: {@link SlimProto}.
 * Field numbers: {@code k8s.io/api/core/v1/generated.proto} ({@code Pod}, {@code PodSpec}, {@code Container},
 * {@code ResourceRequirements}, {@code PodSchedulingGroup}, {@code PodStatus}; a pod's labels are cut down as
 * {@link SlimPodJson#keptLabels} says) and apimachinery's
 * {@code meta/v1/generated.proto} ({@code ObjectMeta}, {@code OwnerReference}). Stateless and thread-safe.
 */
public final class SlimPodProto {
    private SlimPodProto() {}

    /** A {@code PodList} answer (enveloped): items and list metadata ({@code resourceVersion}, {@code continue}). */
    public static V1PodList readList(InputStream body) throws IOException {
        SlimJson.ListParts<V1Pod> l = SlimProtoEnvelope.readList(body, SlimPodProto::readPod);
        return new V1PodList().apiVersion(l.apiVersion()).kind(l.kind()).metadata(l.metadata()).items(l.items());
    }

    /** One watch event (one frame's bytes, without its length). */
    static SlimJson.Event<V1Pod> readEvent(byte[] frame) throws IOException {
        return SlimProtoEnvelope.readEvent(frame, SlimPodProto::readPod, (pod, type) -> {
            pod.setApiVersion(SlimPodSharing.string(type.apiVersion()));
            pod.setKind(SlimPodSharing.string(type.kind()));
        });
    }

    /**
     * One watch event as the informer receives it (a pod, or a status for {@code ERROR}), from one frame's bytes
     * (without its 4-byte length).
     */
    public static Watch.Response<V1Pod> readWatchEvent(byte[] frame) throws IOException {
        SlimJson.Event<V1Pod> e = readEvent(frame);
        return e.status() != null ? new Watch.Response<>(e.type(), e.status()) : new Watch.Response<>(e.type(), e.object());
    }

    /** The fields of one {@code Pod} message (not enveloped: a list item, or the raw of an envelope). */
    public static V1Pod readPod(CodedInputStream in) throws IOException {
        V1Pod pod = new V1Pod();
        int tag;
        while ((tag = tag(in, "pod")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> pod.setMetadata(message(in, tag, "metadata", SlimPodProto::meta));
                case 2 -> pod.setSpec(message(in, tag, "spec", SlimPodProto::spec));
                case 3 -> pod.setStatus(message(in, tag, "status", SlimPodProto::status));
                default -> skip(in, tag, "pod");
            }
        }
        SlimPodJson.keptLabels(pod);
        SlimPodPlacement.trim(pod);
        return SlimPodSharing.share(pod);
    }

    private static V1ObjectMeta meta(CodedInputStream in) throws IOException {
        V1ObjectMeta m = new V1ObjectMeta();
        boolean sawAnnotations = false;
        boolean sawLabels = false;
        Map<String, String> annotations = null;
        Map<String, String> labels = null;
        List<V1OwnerReference> owners = null;
        int tag;
        while ((tag = tag(in, "metadata")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> m.setName(omitEmpty(in, tag, "metadata.name"));
                case 3 -> m.setNamespace(omitEmpty(in, tag, "metadata.namespace"));
                case 5 -> m.setUid(omitEmpty(in, tag, "metadata.uid"));
                case 6 -> m.setResourceVersion(omitEmpty(in, tag, "metadata.resourceVersion"));
                case 9 -> m.setDeletionTimestamp(time(in, tag, "metadata.deletionTimestamp"));
                case 11 -> {
                    sawLabels = true;
                    labels = stringEntry(in, tag, "metadata.labels", key -> true, labels); // trimmed by SlimPodJson.keptLabels
                }
                case 12 -> {
                    sawAnnotations = true;
                    annotations = stringEntry(in, tag, "metadata.annotations", GangMembership::isRelevant, annotations);
                }
                case 13 -> {
                    if (owners == null) {
                        owners = new ArrayList<>(1);
                    }
                    owners.add(message(in, tag, "metadata.ownerReferences", SlimPodProto::owner));
                }
                default -> skip(in, tag, "metadata");
            }
        }
        if (sawLabels) {
            m.setLabels(labels);
        }
        if (sawAnnotations) {
            m.setAnnotations(annotations);
        }
        if (owners != null) {
            m.setOwnerReferences(owners);
        }
        return m;
    }

    private static V1OwnerReference owner(CodedInputStream in) throws IOException {
        V1OwnerReference o = new V1OwnerReference();
        int tag;
        while ((tag = tag(in, "metadata.ownerReferences")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 5 -> o.setApiVersion(string(in, tag, "metadata.ownerReferences.apiVersion"));
                case 1 -> o.setKind(string(in, tag, "metadata.ownerReferences.kind"));
                case 3 -> o.setName(string(in, tag, "metadata.ownerReferences.name"));
                case 4 -> o.setUid(string(in, tag, "metadata.ownerReferences.uid"));
                case 6 -> o.setController(bool(in, tag, "metadata.ownerReferences.controller"));
                default -> skip(in, tag, "metadata.ownerReferences");
            }
        }
        return o;
    }

    private static V1PodSpec spec(CodedInputStream in) throws IOException {
        V1PodSpec s = new V1PodSpec();
        List<V1Container> containers = null;
        List<V1Container> initContainers = null;
        Map<String, Quantity> overhead = null;
        int tag;
        while ((tag = tag(in, "spec")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 10 -> s.setNodeName(omitEmpty(in, tag, "spec.nodeName"));
                case 25 -> s.setPriority(int32(in, tag, "spec.priority"));
                case 31 -> s.setPreemptionPolicy(omitEmpty(in, tag, "spec.preemptionPolicy"));
                case 4 -> s.setTerminationGracePeriodSeconds(int64(in, tag, "spec.terminationGracePeriodSeconds"));
                case 19 -> s.setSchedulerName(omitEmpty(in, tag, "spec.schedulerName"));
                case 2 -> {
                    if (containers == null) {
                        containers = new ArrayList<>(2);
                    }
                    containers.add(message(in, tag, "spec.containers", c -> container(c, "spec.containers")));
                }
                case 20 -> {
                    if (initContainers == null) {
                        initContainers = new ArrayList<>(2);
                    }
                    initContainers.add(message(in, tag, "spec.initContainers", c -> container(c, "spec.initContainers")));
                }
                case 32 -> overhead = quantityEntry(in, tag, "spec.overhead", overhead);
                case 40 -> s.setResources(message(in, tag, "spec.resources", r -> requirements(r, "spec.resources")));
                case 43 -> s.setSchedulingGroup(message(in, tag, "spec.schedulingGroup", SlimPodProto::schedulingGroup));
                default -> {
                    if (!SlimPodPlacementProto.read(tag, in, s)) {
                        skip(in, tag, "spec");
                    }
                }
            }
        }
        // "containers" has no omitempty: Go writes a pod without any (a bookmark's) as JSON null, and SlimPodJson keeps
        // that null; protobuf cannot tell nil from empty, and a real pod always has containers
        s.setContainers(containers);
        if (initContainers != null) {
            s.setInitContainers(initContainers);
        }
        if (overhead != null) {
            s.setOverhead(overhead);
        }
        return s;
    }

    private static V1PodStatus status(CodedInputStream in) throws IOException {
        V1PodStatus s = new V1PodStatus();
        int tag;
        while ((tag = tag(in, "status")) != 0) {
            int field = WireFormat.getTagFieldNumber(tag);
            if (field == 1) {
                s.setPhase(omitEmpty(in, tag, "status.phase"));
            } else if (field == 11) {
                s.setNominatedNodeName(omitEmpty(in, tag, "status.nominatedNodeName"));
            } else {
                skip(in, tag, "status");
            }
        }
        return s;
    }

    private static V1Container container(CodedInputStream in, String where) throws IOException {
        V1Container c = new V1Container();
        int tag;
        while ((tag = tag(in, where)) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> c.setName(string(in, tag, where + ".name"));
                case 6 -> c.setPorts(SlimPodPlacement.add(c.getPorts(), SlimPodPlacement.hostPort(
                        message(in, tag, where + ".ports", p -> hostPort(p, where + ".ports")))));
                case 24 -> c.setRestartPolicy(string(in, tag, where + ".restartPolicy"));
                case 8 -> c.setResources(message(in, tag, where + ".resources", r -> requirements(r, where + ".resources")));
                default -> skip(in, tag, where);
            }
        }
        return c;
    }

    /** A ContainerPort's {@code hostPort} (2), or null when it has none. */
    private static Integer hostPort(CodedInputStream in, String where) throws IOException {
        Integer hostPort = null;
        int tag;
        while ((tag = tag(in, where)) != 0) {
            if (WireFormat.getTagFieldNumber(tag) == 2) {
                hostPort = int32(in, tag, where + ".hostPort");
            } else {
                skip(in, tag, where);
            }
        }
        return hostPort;
    }

    /** Requests (2) only: limits do not count for placement. Null when there are none, as in {@link SlimPodJson}. */
    private static V1ResourceRequirements requirements(CodedInputStream in, String where) throws IOException {
        Map<String, Quantity> requests = null;
        int tag;
        while ((tag = tag(in, where)) != 0) {
            if (WireFormat.getTagFieldNumber(tag) == 2) {
                requests = quantityEntry(in, tag, where + ".requests", requests);
            } else {
                skip(in, tag, where);
            }
        }
        return requests == null ? null : new V1ResourceRequirements().requests(requests);
    }

    private static V1PodSchedulingGroup schedulingGroup(CodedInputStream in) throws IOException {
        V1PodSchedulingGroup g = new V1PodSchedulingGroup();
        int tag;
        while ((tag = tag(in, "spec.schedulingGroup")) != 0) {
            if (WireFormat.getTagFieldNumber(tag) == 1) {
                g.setPodGroupName(string(in, tag, "spec.schedulingGroup.podGroupName"));
            } else {
                skip(in, tag, "spec.schedulingGroup");
            }
        }
        return g;
    }
}
