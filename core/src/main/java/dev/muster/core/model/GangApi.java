package dev.muster.core.model;

/**
 * Which gang API a PodGroup was written in. The core treats all alike; the edges (informers, status writer, demo
 * report) use it to read and write each object in its own shape.
 */
public enum GangApi {
    /** Volcano's {@code scheduling.volcano.sh/v1beta1} PodGroup. */
    VOLCANO("volcano"),
    /** Kubernetes' own {@code scheduling.k8s.io} PodGroup (v1alpha2 in 1.36, v1beta1 from 1.37). */
    KUBERNETES("kubernetes"),
    /** scheduler-plugins' coscheduling {@code scheduling.x-k8s.io/v1alpha1} PodGroup. */
    SCHEDULER_PLUGINS("scheduler-plugins");

    private final String label;

    GangApi(String label) {
        this.label = label;
    }

    /** A short lower-case name for logs, metrics and reports. */
    public String label() {
        return label;
    }
}
