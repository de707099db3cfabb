package dev.muster.common.kube;

/** List types for the PodGroups of the Kubernetes and scheduler-plugins gang APIs (see {@link VolcanoList} for why each is a class). */
public final class GangApiLists {
    private GangApiLists() {}

    /** Kubernetes' {@code PodGroupList}. */
    public static final class KubePodGroups extends VolcanoList<KubePodGroup> {
        public KubePodGroups() {
            super("PodGroup");
        }
    }

    /** scheduler-plugins' {@code PodGroupList}. */
    public static final class CoschedulingPodGroups extends VolcanoList<CoschedulingPodGroup> {
        public CoschedulingPodGroups() {
            super("PodGroup");
        }
    }

    /** Kubernetes' {@code WorkloadList}. */
    public static final class KubeWorkloads extends VolcanoList<KubeWorkload> {
        public KubeWorkloads() {
            super("Workload");
        }
    }
}
