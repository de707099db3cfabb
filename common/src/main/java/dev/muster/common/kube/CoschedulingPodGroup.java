package dev.muster.common.kube;

/** scheduler-plugins' coscheduling {@code scheduling.x-k8s.io/v1alpha1} PodGroup; see {@link CoschedulingPodGroupConverter}. */
public final class CoschedulingPodGroup extends RawCustomObject {
    public CoschedulingPodGroup() {
        setApiVersion(GangApiGroups.SCHEDULER_PLUGINS_GROUP + "/v1alpha1");
        setKind("PodGroup");
    }
}
