package dev.muster.core.model;

import java.util.Map;

/**
 * Volcano-compatible gang membership read from pod annotations: {@code scheduling.k8s.io/group-name}
 * (also {@code scheduling.volcano.sh/group-name}) names the PodGroup in the pod's namespace, and
 * {@code volcano.sh/task-spec} names the task.
 */
public final class GangMembership {
    public static final String GROUP_NAME = "scheduling.k8s.io/group-name";
    public static final String VOLCANO_GROUP_NAME = "scheduling.volcano.sh/group-name";
    public static final String TASK_SPEC = "volcano.sh/task-spec";
    /** PodGroup annotation overriding the reservation deadline, e.g. {@code 90s} or {@code 2m}. */
    public static final String DEADLINE_ANNOTATION = "muster.dev/gang-deadline";
    /**
     * PodGroup annotation asking for a topology constraint: {@code required:<node label key>},
     * {@code preferred:<node label key>}, or a bare {@code <node label key>} (required). The key must be one of the
     * extender's {@code --topology-levels}.
     */
    public static final String TOPOLOGY_ANNOTATION = "muster.dev/topology";

    private GangMembership() {}

    /** The annotation keys the decoders must keep; everything else may be skipped. */
    public static boolean isRelevant(String annotationKey) {
        return GROUP_NAME.equals(annotationKey) || VOLCANO_GROUP_NAME.equals(annotationKey) || TASK_SPEC.equals(annotationKey);
    }

    /** Only the annotations gang membership needs (null when none), so caches keep nothing else. */
    public static Map<String, String> relevantOnly(Map<String, String> annotations) {
        if (annotations == null || annotations.isEmpty()) {
            return null;
        }
        Map<String, String> kept = null;
        for (Map.Entry<String, String> e : annotations.entrySet()) {
            if (isRelevant(e.getKey())) {
                if (kept == null) {
                    kept = new java.util.HashMap<>(4);
                }
                kept.put(e.getKey(), e.getValue());
            }
        }
        return kept;
    }

    /** The gang of a pod in {@code namespace} with these annotations, or null for a single pod. */
    public static GangKey gangOf(String namespace, Map<String, String> annotations) {
        if (annotations == null) {
            return null;
        }
        String group = annotations.get(GROUP_NAME);
        if (group == null || group.isEmpty()) {
            group = annotations.get(VOLCANO_GROUP_NAME);
        }
        return group == null || group.isEmpty() ? null : new GangKey(namespace, group);
    }

    /**
     * The pod as a scheduler named {@code ours} sees it: a pod of another scheduler ({@code podScheduler} set and
     * different) is only accounted for — where it runs and what it uses — and never joins a gang, whatever its
     * annotations say (its own scheduler places its gang). A pod without a schedulerName is treated as ours.
     */
    public static Pod servedBy(Pod pod, String podScheduler, String ours) {
        if (pod.gang() == null || podScheduler == null || podScheduler.isEmpty() || podScheduler.equals(ours)) {
            return pod;
        }
        return new Pod(pod.id(), pod.resourceVersion(), pod.request(), null, "", pod.priority(), pod.nodeName(), pod.phase());
    }

    public static String taskOf(Map<String, String> annotations) {
        String task = annotations == null ? null : annotations.get(TASK_SPEC);
        return task == null ? "" : task;
    }
}
