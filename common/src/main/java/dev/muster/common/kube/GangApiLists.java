package dev.muster.common.kube;

/**
 * List types for the PodGroups of the Kubernetes and scheduler-plugins gang APIs (see {@link RawCustomObjectList} for why
 * each is a class). Each is read in several versions, so a list has no apiVersion of its own until the API names it.
 */
public final class GangApiLists {
    private GangApiLists() {}

    /** Kubernetes' {@code PodGroupList}. */
    public static final class KubePodGroups extends RawCustomObjectList<KubePodGroup> {
        public KubePodGroups() {
            super(null, "PodGroup");
        }
    }

    /** scheduler-plugins' {@code PodGroupList}. */
    public static final class CoschedulingPodGroups extends RawCustomObjectList<CoschedulingPodGroup> {
        public CoschedulingPodGroups() {
            super(null, "PodGroup");
        }
    }

    /** Kubernetes' {@code WorkloadList}. */
    public static final class KubeWorkloads extends RawCustomObjectList<KubeWorkload> {
        public KubeWorkloads() {
            super(null, "Workload");
        }
    }
}
