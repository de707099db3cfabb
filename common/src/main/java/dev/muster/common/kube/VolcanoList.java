package dev.muster.common.kube;

import io.kubernetes.client.common.KubernetesListObject;
import io.kubernetes.client.openapi.models.V1ListMeta;
import java.util.ArrayList;
import java.util.List;

/**
 * A list of Volcano custom objects as the API returns it. One generic type for every CRD; the nested subclasses
 * exist only because client-java's {@code GenericKubernetesApi} takes the list type as a {@code Class} and
 * deserializes with Gson: a raw {@code VolcanoList.class} would lose {@code T} to erasure, while a subclass that
 * fixes {@code T} lets Gson build typed items. Not thread-safe.
 */
public class VolcanoList<T extends RawCustomObject> implements KubernetesListObject {
    private String apiVersion = VolcanoCrds.API_VERSION;
    private String kind;
    private V1ListMeta metadata;
    private List<T> items = new ArrayList<>();

    VolcanoList(String itemKind) {
        this.kind = itemKind + "List";
    }

    /** {@code PodGroupList}. */
    public static final class PodGroups extends VolcanoList<VolcanoPodGroup> {
        public PodGroups() {
            super(VolcanoCrds.PODGROUP_KIND);
        }
    }

    /** {@code QueueList}. */
    public static final class Queues extends VolcanoList<VolcanoQueue> {
        public Queues() {
            super(VolcanoCrds.QUEUE_KIND);
        }
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
