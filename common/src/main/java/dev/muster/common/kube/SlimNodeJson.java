package dev.muster.common.kube;

import static dev.muster.common.kube.SlimJson.bool;
import static dev.muster.common.kube.SlimJson.quantities;
import static dev.muster.common.kube.SlimJson.string;
import static dev.muster.common.kube.SlimJson.strings;
import static dev.muster.common.kube.SlimJson.time;

import com.google.gson.stream.JsonReader;
import io.kubernetes.client.openapi.models.V1Node;
import io.kubernetes.client.openapi.models.V1NodeList;
import io.kubernetes.client.openapi.models.V1NodeSpec;
import io.kubernetes.client.openapi.models.V1NodeStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Taint;
import java.io.IOException;

/**
 * Reads Nodes from the API server's JSON in one streaming pass, keeping what the extender's ledger reads
 * ({@code NodeConverter}): name, uid, resourceVersion, deletion timestamp, labels (topology levels are chosen from
 * them), {@code spec.unschedulable}, the taints of {@code spec.taints} (key, value, effect) and {@code status.allocatable}. The bulk of a real Node — its image list,
 * conditions, addresses, managed fields — is skipped unread, which matters on every kubelet status update and for the
 * first list of a large cluster. Errors as in {@link SlimPodJson}. The JSON counterpart of {@link SlimNodeProto} (same
 * objects), used when the API server answers JSON. Stateless and thread-safe.
 */
public final class SlimNodeJson {
    private SlimNodeJson() {}

    /** A {@code NodeList}: items and list metadata. */
    public static V1NodeList readList(JsonReader in) throws IOException {
        SlimJson.ListParts<V1Node> l = SlimJson.readList(in, SlimNodeJson::readNode);
        return new V1NodeList().apiVersion(l.apiVersion()).kind(l.kind()).metadata(l.metadata()).items(l.items());
    }

    /** One Node object. */
    public static V1Node readNode(JsonReader in) throws IOException {
        V1Node node = new V1Node();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "apiVersion" -> node.setApiVersion(string(in, "apiVersion"));
                case "kind" -> node.setKind(string(in, "kind"));
                case "metadata" -> node.setMetadata(meta(in));
                case "spec" -> node.setSpec(spec(in));
                case "status" -> node.setStatus(status(in));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return node;
    }

    private static V1ObjectMeta meta(JsonReader in) throws IOException {
        V1ObjectMeta m = new V1ObjectMeta();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "name" -> m.setName(string(in, "metadata.name"));
                case "uid" -> m.setUid(string(in, "metadata.uid"));
                case "resourceVersion" -> m.setResourceVersion(string(in, "metadata.resourceVersion"));
                case "deletionTimestamp" -> m.setDeletionTimestamp(time(in, "metadata.deletionTimestamp"));
                case "labels" -> m.setLabels(strings(in, "metadata.labels", key -> true));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return m;
    }

    private static V1NodeSpec spec(JsonReader in) throws IOException {
        V1NodeSpec s = new V1NodeSpec();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "unschedulable" -> s.setUnschedulable(bool(in, "spec.unschedulable"));
                case "taints" -> s.setTaints(preferNoScheduleTaints(in));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return s;
    }

    /** {@code spec.taints} with key, value and effect, keeping those of the three effects kube-scheduler knows. */
    private static java.util.List<V1Taint> preferNoScheduleTaints(JsonReader in) throws IOException {
        if (in.peek() == com.google.gson.stream.JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        java.util.List<V1Taint> kept = new java.util.ArrayList<>(1);
        in.beginArray();
        while (in.hasNext()) {
            V1Taint t = new V1Taint();
            in.beginObject();
            while (in.hasNext()) {
                switch (in.nextName()) {
                    case "key" -> t.setKey(string(in, "spec.taints.key"));
                    case "value" -> t.setValue(string(in, "spec.taints.value"));
                    case "effect" -> t.setEffect(string(in, "spec.taints.effect"));
                    default -> in.skipValue();
                }
            }
            in.endObject();
            if (kept(t)) {
                kept.add(t);
            }
        }
        in.endArray();
        return kept;
    }

    /** The taint effect that kube-scheduler scores (TaintToleration) rather than filters. */
    public static final String PREFER_NO_SCHEDULE = "PreferNoSchedule";

    /** Whether a taint is kept: effect {@code PreferNoSchedule} (scored), {@code NoSchedule} or {@code NoExecute} (filtered). */
    static boolean kept(V1Taint t) {
        return PREFER_NO_SCHEDULE.equals(t.getEffect()) || dev.muster.core.model.NodeTaint.filters(t.getEffect());
    }

    private static V1NodeStatus status(JsonReader in) throws IOException {
        V1NodeStatus s = new V1NodeStatus();
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("allocatable")) {
                s.setAllocatable(quantities(in, "status.allocatable"));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return s;
    }
}
