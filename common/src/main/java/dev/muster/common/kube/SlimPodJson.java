package dev.muster.common.kube;

import com.google.gson.stream.JsonReader;
import com.google.gson.stream.JsonToken;
import dev.muster.core.model.GangMembership;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ListMeta;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodList;
import io.kubernetes.client.openapi.models.V1PodSchedulingGroup;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import io.kubernetes.client.openapi.models.V1Status;
import java.io.IOException;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads Pods from the API server's JSON in one streaming pass, keeping only what Muster's processes read
 * ({@link PodConverter} in the extender, the member counts in the controller): identity, resourceVersion, deletion
 * timestamp, owner references, the gang annotations and label ({@link GangMembership#isRelevant}), node name,
 * priority, scheduler name, {@code spec.schedulingGroup}, container and init-container names, restart policies and
 * requests, overhead, pod-level requests, and {@code status.phase}. Everything else (env, volumes, probes, managed
 * fields, conditions, other annotations) is skipped token by token without building anything.
 *
 * <p>Why: client-java decodes every watch event into a JSON tree, validates it field by field against the model,
 * and then builds the full {@code V1Pod} by reflection — on the real control plane that was about half of the
 * extender's CPU (docs/benchmarks.md, "Real loop"). This reader builds the same slim {@code V1Pod} the informers'
 * transforms used to cut down to, directly.
 *
 * <p>Lenient about what it does not read; strict about what it does: a value of the wrong JSON type in a kept field
 * is an {@link IOException} naming the field (the informer's list or watch then fails and is retried, as for any
 * malformed answer). Stateless and thread-safe.
 */
public final class SlimPodJson {
    private SlimPodJson() {}

    /** One event of a watch stream: its type and either a pod or (type {@code ERROR}) a status. */
    public record Event(String type, V1Pod pod, V1Status status) {}

    /** A {@code PodList}: items and list metadata ({@code resourceVersion}, {@code continue}). */
    public static V1PodList readList(JsonReader in) throws IOException {
        V1PodList list = new V1PodList().items(new ArrayList<>());
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "apiVersion" -> list.setApiVersion(string(in, "apiVersion"));
                case "kind" -> list.setKind(string(in, "kind"));
                case "metadata" -> list.setMetadata(listMeta(in));
                case "items" -> {
                    if (in.peek() == JsonToken.NULL) {
                        in.nextNull();
                    } else {
                        in.beginArray();
                        while (in.hasNext()) {
                            list.getItems().add(readPod(in));
                        }
                        in.endArray();
                    }
                }
                default -> in.skipValue();
            }
        }
        in.endObject();
        return list;
    }

    /**
     * One watch event ({@code {"type": ..., "object": ...}}). The object is read as a Status when the type is
     * {@code ERROR}; should the object come before the type (the API server writes the type first), it is read as a pod
     * and, for an error, its code and message are lost — the informer then relists, which is always safe.
     */
    public static Event readEvent(JsonReader in) throws IOException {
        String type = null;
        V1Pod pod = null;
        V1Status status = null;
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "type" -> type = string(in, "type");
                case "object" -> {
                    if ("ERROR".equals(type)) {
                        status = readStatus(in);
                    } else {
                        pod = readPod(in);
                    }
                }
                default -> in.skipValue();
            }
        }
        in.endObject();
        if (type == null) {
            throw new IOException("watch event without a type");
        }
        if ("ERROR".equals(type) && status == null) {
            status = new V1Status().kind("Status").status("Failure").message("watch error without a status");
        }
        return new Event(type, pod, status);
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
        return pod;
    }

    static V1Status readStatus(JsonReader in) throws IOException {
        V1Status s = new V1Status();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "apiVersion" -> s.setApiVersion(string(in, "apiVersion"));
                case "kind" -> s.setKind(string(in, "kind"));
                case "status" -> s.setStatus(string(in, "status"));
                case "message" -> s.setMessage(string(in, "message"));
                case "reason" -> s.setReason(string(in, "reason"));
                case "code" -> s.setCode(integer(in, "code"));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return s;
    }

    private static V1ListMeta listMeta(JsonReader in) throws IOException {
        V1ListMeta m = new V1ListMeta();
        in.beginObject();
        while (in.hasNext()) {
            switch (in.nextName()) {
                case "resourceVersion" -> m.setResourceVersion(string(in, "metadata.resourceVersion"));
                case "continue" -> m.setContinue(string(in, "metadata.continue"));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return m;
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
                case "annotations" -> m.setAnnotations(strings(in, "metadata.annotations", true));
                case "labels" -> m.setLabels(strings(in, "metadata.labels", false));
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
            switch (in.nextName()) {
                case "nodeName" -> s.setNodeName(string(in, "spec.nodeName"));
                case "priority" -> s.setPriority(integer(in, "spec.priority"));
                case "schedulerName" -> s.setSchedulerName(string(in, "spec.schedulerName"));
                case "containers" -> s.setContainers(containers(in, "spec.containers"));
                case "initContainers" -> s.setInitContainers(containers(in, "spec.initContainers"));
                case "overhead" -> s.setOverhead(quantities(in, "spec.overhead"));
                case "resources" -> s.setResources(requirements(in, "spec.resources"));
                case "schedulingGroup" -> s.setSchedulingGroup(schedulingGroup(in));
                default -> in.skipValue();
            }
        }
        in.endObject();
        return s;
    }

    private static V1PodStatus status(JsonReader in) throws IOException {
        V1PodStatus s = new V1PodStatus();
        in.beginObject();
        while (in.hasNext()) {
            if (in.nextName().equals("phase")) {
                s.setPhase(string(in, "status.phase"));
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
                    default -> in.skipValue();
                }
            }
            in.endObject();
            out.add(c);
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

    private static Map<String, Quantity> quantities(JsonReader in, String where) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        Map<String, Quantity> out = new HashMap<>(4);
        in.beginObject();
        while (in.hasNext()) {
            String name = in.nextName();
            String value = string(in, where + "." + name);
            if (value != null) {
                out.put(name, new Text(value));
            }
        }
        in.endObject();
        return out;
    }

    /**
     * A quantity kept as the API server wrote it: {@link #toSuffixedString()} is that text, which is what
     * {@link ResourceLists#fromQuantities} parses (with the core's parser, which names a malformed value). client-java's
     * own parse (a regular expression compiled per call, then BigDecimal arithmetic) and its formatting back to text
     * were a tenth of the extender's allocation in the real loop; here they run only if the number itself is asked for.
     */
    static final class Text extends Quantity {
        private final String text;
        private volatile Quantity parsed; // lazily, only for getNumber/getFormat/equals

        Text(String text) {
            super(java.math.BigDecimal.ZERO, Format.DECIMAL_SI);
            this.text = text;
        }

        private Quantity parsed() {
            Quantity q = parsed;
            if (q == null) {
                q = new Quantity(text);
                parsed = q;
            }
            return q;
        }

        @Override
        public java.math.BigDecimal getNumber() {
            return parsed().getNumber();
        }

        @Override
        public Format getFormat() {
            return parsed().getFormat();
        }

        @Override
        public String toSuffixedString() {
            return text;
        }

        @Override
        public String toString() {
            return text;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Quantity q && parsed().equals(q instanceof Text t ? t.parsed() : q);
        }

        @Override
        public int hashCode() {
            return parsed().hashCode();
        }
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

    /** String maps, keeping only the gang annotations (or the gang label); null when none is kept. */
    private static Map<String, String> strings(JsonReader in, String where, boolean annotations) throws IOException {
        if (in.peek() == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        Map<String, String> kept = null;
        in.beginObject();
        while (in.hasNext()) {
            String key = in.nextName();
            if (annotations ? GangMembership.isRelevant(key) : GangMembership.isRelevantLabel(key)) {
                if (kept == null) {
                    kept = new HashMap<>(4);
                }
                kept.put(key, string(in, where + "." + key));
            } else {
                in.skipValue();
            }
        }
        in.endObject();
        return kept;
    }

    private static OffsetDateTime time(JsonReader in, String where) throws IOException {
        String s = string(in, where);
        try {
            return s == null ? null : OffsetDateTime.parse(s);
        } catch (DateTimeParseException e) {
            throw new IOException(where + ": not an RFC 3339 time: \"" + s + "\"", e);
        }
    }

    private static String string(JsonReader in, String where) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        if (t != JsonToken.STRING) {
            throw new IOException(where + ": expected a string, found " + t);
        }
        return in.nextString();
    }

    private static Integer integer(JsonReader in, String where) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        if (t != JsonToken.NUMBER) {
            throw new IOException(where + ": expected an integer, found " + t);
        }
        try {
            return in.nextInt();
        } catch (NumberFormatException e) {
            throw new IOException(where + ": not an int32", e);
        }
    }

    private static Boolean bool(JsonReader in, String where) throws IOException {
        JsonToken t = in.peek();
        if (t == JsonToken.NULL) {
            in.nextNull();
            return null;
        }
        if (t != JsonToken.BOOLEAN) {
            throw new IOException(where + ": expected true or false, found " + t);
        }
        return in.nextBoolean();
    }
}
