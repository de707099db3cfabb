package dev.muster.common.kube;

/**
 * Kubernetes' {@code scheduling.k8s.io} Workload ({@code v1alpha2} in 1.36, {@code v1beta1} from 1.37), read raw: Muster
 * reads only {@code spec.podGroupTemplates[]}, the templates Kubernetes PodGroups refer to ({@link WorkloadTemplates}),
 * each read by the version of the PodGroup that names it. A Workload of {@code compositePodGroupTemplates} has no
 * PodGroup template of its own: its PodGroups are children of CompositePodGroups, which Muster refuses.
 */
public final class KubeWorkload extends RawCustomObject {
    public KubeWorkload() {
        setKind("Workload");
    }
}
