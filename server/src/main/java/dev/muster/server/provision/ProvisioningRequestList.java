package dev.muster.server.provision;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/** A list of ProvisioningRequests as the API returns it (each item given its apiVersion). Not thread-safe. */
public final class ProvisioningRequestList implements KubernetesListObject {
    private String apiVersion = RequestObjects.API_VERSION;
    private String kind = "ProvisioningRequestList";
    private V1ListMeta metadata;
    private List<ProvisioningRequestObject> items = new ArrayList<>();

    @Override
    public String getApiVersion() {
        return apiVersion;
    }

    @Override
    public String getKind() {
        return kind;
    }

    @Override
    public V1ListMeta getMetadata() {
        return metadata;
    }

    public void setMetadata(V1ListMeta metadata) {
        this.metadata = metadata;
    }

    @Override
    public List<ProvisioningRequestObject> getItems() {
        if (items == null) {
            return List.of();
        }
        for (ProvisioningRequestObject item : items) {
            if (item.getApiVersion() == null) {
                item.setApiVersion(apiVersion);
            }
        }
        return items;
    }

    public void setItems(List<ProvisioningRequestObject> items) {
        this.items = items;
    }
}
