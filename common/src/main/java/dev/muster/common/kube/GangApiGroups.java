package dev.muster.common.kube;

import dev.muster.core.model.GangApi;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import java.util.List;

/**
 * Where each gang API's PodGroups live: API group, the versions Muster reads (newest first; discovery picks the
 * first one the API server serves, {@link GangApiDiscovery}) and the resource. Kubernetes' own PodGroup moved from
 * {@code v1alpha2} (1.36) to {@code v1beta1} (1.37); each is read as its own types define it ({@link KubePodGroupVersion}).
 */
public final class GangApiGroups {
    public static final String PODGROUPS = "podgroups";
    /** Kubernetes' Workloads ({@code scheduling.k8s.io}), which hold the templates its PodGroups refer to. */
    public static final String WORKLOADS = "workloads";
    public static final String KUBERNETES_GROUP = "scheduling.k8s.io";
    public static final String SCHEDULER_PLUGINS_GROUP = "scheduling.x-k8s.io";

    private GangApiGroups() {}

    /** The API group of {@code api}'s PodGroup. */
    public static String group(GangApi api) {
        return switch (api) {
            case VOLCANO -> VolcanoCrds.GROUP;
            case KUBERNETES -> KUBERNETES_GROUP;
            case SCHEDULER_PLUGINS -> SCHEDULER_PLUGINS_GROUP;
        };
    }

    /** The versions Muster can read, preferred first. */
    public static List<String> versions(GangApi api) {
        return switch (api) {
            case VOLCANO -> List.of(VolcanoCrds.VERSION);
            case KUBERNETES -> List.of("v1beta1", "v1alpha2");
            case SCHEDULER_PLUGINS -> List.of("v1alpha1");
        };
    }

    /** {@code podgroups.<group>}, for logs. */
    public static String resourceName(GangApi api) {
        return PODGROUPS + "." + group(api);
    }

    /**
     * {@code podGroup} of {@code api} as the core's spec; a Kubernetes PodGroup's template reference is left unresolved
     * (use {@link WorkloadTemplates} for those). @throws ConversionException naming the PodGroup and the field
     */
    public static dev.muster.core.model.PodGroupSpec toCore(GangApi api, RawCustomObject podGroup) {
        return switch (api) {
            case VOLCANO -> PodGroupConverter.toCore((VolcanoPodGroup) podGroup);
            case KUBERNETES -> KubernetesPodGroupConverter.toCore(podGroup);
            case SCHEDULER_PLUGINS -> CoschedulingPodGroupConverter.toCore(podGroup);
        };
    }

    /** When the PodGroup was created, or null when unknown. */
    public static java.time.Instant createdAt(RawCustomObject podGroup) {
        var meta = podGroup.getMetadata();
        return meta == null || meta.getCreationTimestamp() == null ? null : meta.getCreationTimestamp().toInstant();
    }

    /** A client for the Kubernetes PodGroups at {@code version}. */
    public static GenericKubernetesApi<KubePodGroup, GangApiLists.KubePodGroups> kubernetes(ApiClient client, String version) {
        return new GenericKubernetesApi<>(KubePodGroup.class, GangApiLists.KubePodGroups.class, KUBERNETES_GROUP, version, PODGROUPS, client);
    }

    /** A client for Kubernetes' Workloads at {@code version}. */
    public static GenericKubernetesApi<KubeWorkload, GangApiLists.KubeWorkloads> workloads(ApiClient client, String version) {
        return new GenericKubernetesApi<>(KubeWorkload.class, GangApiLists.KubeWorkloads.class, KUBERNETES_GROUP, version, WORKLOADS, client);
    }

    /** A client for scheduler-plugins' PodGroups at {@code version}. */
    public static GenericKubernetesApi<CoschedulingPodGroup, GangApiLists.CoschedulingPodGroups> schedulerPlugins(ApiClient client,
                                                                                                               String version) {
        return new GenericKubernetesApi<>(CoschedulingPodGroup.class, GangApiLists.CoschedulingPodGroups.class, SCHEDULER_PLUGINS_GROUP,
                version, PODGROUPS, client);
    }
}
