package dev.muster.common.kube;

/**
 * Kubernetes' {@code scheduling.k8s.io} Workload ({@code v1alpha2} in 1.36), read raw: Muster reads only
 * {@code spec.podGroupTemplates[]}, the templates Kubernetes PodGroups refer to ({@link WorkloadTemplates}).
 */
public final class KubeWorkload extends RawCustomObject {
    public KubeWorkload() {
        setKind("Workload");
    }
}
