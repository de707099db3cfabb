package dev.muster.common.kube;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/** A list of {@link VolcanoPodGroup} as the API returns it. Not thread-safe. */
public final class VolcanoPodGroupList implements KubernetesListObject {
    private String apiVersion = VolcanoCrds.API_VERSION;
    private String kind = VolcanoCrds.PODGROUP_KIND + "List";
    private V1ListMeta metadata;
    private List<VolcanoPodGroup> items = new ArrayList<>();

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
    public List<VolcanoPodGroup> getItems() {
        return items == null ? List.of() : items;
    }

    public void setItems(List<VolcanoPodGroup> items) {
        this.items = items;
    }
}
