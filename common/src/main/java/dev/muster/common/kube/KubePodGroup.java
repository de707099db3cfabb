package dev.muster.common.kube;

/**
 * Kubernetes' own {@code scheduling.k8s.io} PodGroup ({@code v1alpha2} in 1.36, {@code v1beta1} from 1.37), read raw;
 * its {@code apiVersion} picks the reader of its version ({@link KubePodGroupVersion}, {@link KubernetesPodGroupConverter}).
 */
public final class KubePodGroup extends RawCustomObject {
    public KubePodGroup() {
        setKind("PodGroup");
    }
}
