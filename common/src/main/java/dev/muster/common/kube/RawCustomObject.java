package dev.muster.common.kube;

import com.google.gson.JsonObject;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.openapi.models.V1ObjectMeta;

/**
 * A custom resource read without a schema: typed metadata, raw JSON {@code spec} and {@code status}. Keeping spec
 * and status raw means one malformed field fails the conversion of that one object (with a message naming the
 * field), never the deserialization of a whole list. Subclasses exist only so that each CRD has its own Java type
 * (client-java's {@code SharedInformerFactory} keys informers by type).
 *
 * <p>Not thread-safe; objects handed out by an informer are shared and must be treated as read-only.
 */
public abstract class RawCustomObject implements KubernetesObject {
    private String apiVersion;
    private String kind;
    private V1ObjectMeta metadata;
    private JsonObject spec;
    private JsonObject status;

    @Override
    public String getApiVersion() {
        return apiVersion;
    }

    public void setApiVersion(String apiVersion) {
        this.apiVersion = apiVersion;
    }

    @Override
    public String getKind() {
        return kind;
    }

    public void setKind(String kind) {
        this.kind = kind;
    }

    @Override
    public V1ObjectMeta getMetadata() {
        return metadata;
    }

    public void setMetadata(V1ObjectMeta metadata) {
        this.metadata = metadata;
    }

    /** The raw spec, or null when absent. */
    public JsonObject getSpec() {
        return spec;
    }

    public void setSpec(JsonObject spec) {
        this.spec = spec;
    }

    /** The raw status, or null when absent. */
    public JsonObject getStatus() {
        return status;
    }

    public void setStatus(JsonObject status) {
        this.status = status;
    }

    /** {@code namespace/name} or {@code name}, for messages. */
    public String displayName() {
        if (metadata == null) {
            return "?";
        }
        return metadata.getNamespace() == null || metadata.getNamespace().isEmpty()
                ? String.valueOf(metadata.getName()) : metadata.getNamespace() + "/" + metadata.getName();
    }
}
