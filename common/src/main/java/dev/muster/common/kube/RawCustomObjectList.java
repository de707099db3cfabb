package dev.muster.common.kube;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * A list of {@link RawCustomObject}s as the API returns it. One generic type for every such kind; each kind has a
 * subclass only because client-java's {@code GenericKubernetesApi} takes the list type as a {@code Class} and
 * deserializes with Gson: a raw {@code RawCustomObjectList.class} would lose {@code T} to erasure, while a subclass
 * that fixes {@code T} lets Gson build typed items. Not thread-safe.
 */
public abstract class RawCustomObjectList<T extends RawCustomObject> implements KubernetesListObject {
    private String apiVersion;
    private String kind;
    private V1ListMeta metadata;
    private List<T> items = new ArrayList<>();

    /**
     * @param apiVersion the list's until the API names it (null for a kind read in several versions)
     * @param itemKind   the kind of its items ({@code PodGroup} for a {@code PodGroupList})
     */
    protected RawCustomObjectList(String apiVersion, String itemKind) {
        this.apiVersion = apiVersion;
        this.kind = itemKind + "List";
    }

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

    /**
     * The items, each with an {@code apiVersion}: the API server leaves it out of the items of a built-in type's list
     * (the list names it once), and a reader of several versions needs it per object ({@link KubePodGroupVersion}).
     */
    @Override
    public List<T> getItems() {
        if (items == null) {
            return List.of();
        }
        for (T item : items) {
            if (item.getApiVersion() == null) {
                item.setApiVersion(apiVersion);
            }
        }
        return items;
    }

    public void setItems(List<T> items) {
        this.items = items;
    }
}
