package dev.muster.common.kube;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.GenericKubernetesApi;

/**
 * Coordinates of Volcano's scheduling CRDs and client-java APIs for them. PodGroups are namespaced
 * ({@code /apis/scheduling.volcano.sh/v1beta1/namespaces/{ns}/podgroups}); Queues are cluster-scoped
 * ({@code /apis/scheduling.volcano.sh/v1beta1/queues}, with a status subresource).
 */
public final class VolcanoCrds {
    public static final String GROUP = "scheduling.volcano.sh";
    public static final String VERSION = "v1beta1";
    public static final String API_VERSION = GROUP + "/" + VERSION;
    public static final String PODGROUPS = "podgroups";
    public static final String QUEUES = "queues";
    public static final String PODGROUP_KIND = "PodGroup";
    public static final String QUEUE_KIND = "Queue";

    private VolcanoCrds() {}

    /** {@code PodGroupList}. */
    public static final class PodGroupList extends RawCustomObjectList<VolcanoPodGroup> {
        public PodGroupList() {
            super(API_VERSION, PODGROUP_KIND);
        }
    }

    /** {@code QueueList}. */
    public static final class QueueList extends RawCustomObjectList<VolcanoQueue> {
        public QueueList() {
            super(API_VERSION, QUEUE_KIND);
        }
    }

    public static GenericKubernetesApi<VolcanoPodGroup, PodGroupList> podGroups(ApiClient client) {
        return new GenericKubernetesApi<>(VolcanoPodGroup.class, PodGroupList.class, GROUP, VERSION, PODGROUPS, client);
    }

    public static GenericKubernetesApi<VolcanoQueue, QueueList> queues(ApiClient client) {
        return new GenericKubernetesApi<>(VolcanoQueue.class, QueueList.class, GROUP, VERSION, QUEUES, client);
    }
}
