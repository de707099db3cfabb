package dev.muster.common.kube;

import static dev.muster.common.kube.SlimProto.bool;
import static dev.muster.common.kube.SlimProto.message;
import static dev.muster.common.kube.SlimProto.omitEmpty;
import static dev.muster.common.kube.SlimProto.omitFalse;
import static dev.muster.common.kube.SlimProto.quantityEntry;
import static dev.muster.common.kube.SlimProto.skip;
import static dev.muster.common.kube.SlimProto.string;
import static dev.muster.common.kube.SlimProto.stringEntry;
import static dev.muster.common.kube.SlimProto.tag;
import static dev.muster.common.kube.SlimProto.time;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1NodeStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Taint;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads Nodes from the API server's protobuf encoding into exactly the slim {@code V1Node} that {@link SlimNodeJson}
 * builds from JSON (name, uid, resourceVersion, deletion timestamp, labels, {@code spec.unschedulable}, the
 * taints (key, value, effect), {@code status.allocatable}); a node's images, conditions and managed fields are
 * skipped by length. Field numbers: {@code k8s.io/api/core/v1/generated.proto} ({@code Node}, {@code NodeSpec},
 * {@code Taint}, {@code NodeStatus}). Wire format and errors: {@link SlimProto}. Stateless and thread-safe.
 */
public final class SlimNodeProto {
    private SlimNodeProto() {}

    /** A {@code NodeList} answer (enveloped): items and list metadata. */
    public static V1NodeList readList(InputStream body) throws IOException {
        SlimJson.ListParts<V1Node> l = SlimProtoEnvelope.readList(body, SlimNodeProto::readNode);
        return new V1NodeList().apiVersion(l.apiVersion()).kind(l.kind()).metadata(l.metadata()).items(l.items());
    }

    /** One watch event (one frame's bytes, without its length). */
    static SlimJson.Event<V1Node> readEvent(byte[] frame) throws IOException {
        return SlimProtoEnvelope.readEvent(frame, SlimNodeProto::readNode, (node, type) -> {
            node.setApiVersion(type.apiVersion());
            node.setKind(type.kind());
        });
    }

    /** The fields of one {@code Node} message (not enveloped). */
    public static V1Node readNode(CodedInputStream in) throws IOException {
        V1Node node = new V1Node();
        int tag;
        while ((tag = tag(in, "node")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> node.setMetadata(message(in, tag, "metadata", SlimNodeProto::meta));
                case 2 -> node.setSpec(message(in, tag, "spec", SlimNodeProto::spec));
                case 3 -> node.setStatus(message(in, tag, "status", SlimNodeProto::status));
                default -> skip(in, tag, "node");
            }
        }
        return node;
    }

    private static V1ObjectMeta meta(CodedInputStream in) throws IOException {
        V1ObjectMeta m = new V1ObjectMeta();
        Map<String, String> labels = null;
        boolean sawLabels = false;
        int tag;
        while ((tag = tag(in, "metadata")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> m.setName(omitEmpty(in, tag, "metadata.name"));
                case 5 -> m.setUid(omitEmpty(in, tag, "metadata.uid"));
                case 6 -> m.setResourceVersion(omitEmpty(in, tag, "metadata.resourceVersion"));
                case 9 -> m.setDeletionTimestamp(time(in, tag, "metadata.deletionTimestamp"));
                case 11 -> {
                    sawLabels = true;
                    labels = stringEntry(in, tag, "metadata.labels", key -> true, labels);
                }
                default -> skip(in, tag, "metadata");
            }
        }
        if (sawLabels) {
            m.setLabels(labels);
        }
        return m;
    }

    private static V1NodeSpec spec(CodedInputStream in) throws IOException {
        V1NodeSpec s = new V1NodeSpec();
        List<V1Taint> taints = null;
        int tag;
        while ((tag = tag(in, "spec")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 4 -> s.setUnschedulable(omitFalse(in, tag, "spec.unschedulable"));
                case 5 -> {
                    if (taints == null) {
                        taints = new ArrayList<>(1);
                    }
                    V1Taint t = message(in, tag, "spec.taints", SlimNodeProto::taint);
                    if (SlimNodeJson.kept(t)) {
                        taints.add(t);
                    }
                }
                default -> skip(in, tag, "spec");
            }
        }
        if (taints != null) {
            s.setTaints(taints);
        }
        return s;
    }

    private static V1Taint taint(CodedInputStream in) throws IOException {
        V1Taint t = new V1Taint();
        int tag;
        while ((tag = tag(in, "spec.taints")) != 0) {
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> t.setKey(string(in, tag, "spec.taints.key"));
                case 2 -> t.setValue(omitEmpty(in, tag, "spec.taints.value"));
                case 3 -> t.setEffect(string(in, tag, "spec.taints.effect"));
                default -> skip(in, tag, "spec.taints");
            }
        }
        return t;
    }

    private static V1NodeStatus status(CodedInputStream in) throws IOException {
        V1NodeStatus s = new V1NodeStatus();
        Map<String, Quantity> allocatable = null;
        int tag;
        while ((tag = tag(in, "status")) != 0) {
            if (WireFormat.getTagFieldNumber(tag) == 2) {
                allocatable = quantityEntry(in, tag, "status.allocatable", allocatable);
            } else {
                skip(in, tag, "status");
            }
        }
        if (allocatable != null) {
            s.setAllocatable(allocatable);
        }
        return s;
    }
}
