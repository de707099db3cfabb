package dev.muster.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Gang membership as pods declare it, in each gang API's own way — all naming a PodGroup in the pod's namespace:
 * <ul>
 *   <li>Volcano: the annotation {@code scheduling.k8s.io/group-name} (also {@code scheduling.volcano.sh/group-name};
 *       the first wins), and {@code volcano.sh/task-spec} names the task;</li>
 *   <li>Kubernetes ({@code scheduling.k8s.io} PodGroup): {@code spec.schedulingGroup.podGroupName};</li>
 *   <li>scheduler-plugins (coscheduling): the label {@code scheduling.x-k8s.io/pod-group}.</li>
 * </ul>
 * A gang is identified by namespace and name whichever way a pod names it ({@link GangKey}). The annotation and the
 * label are written by whoever writes the pod template; {@code spec.schedulingGroup} is also filled in by workload
 * controllers on their own (Kubernetes' Job controller with {@code WorkloadWithJob} sets it on the pods of every
 * Indexed Job in 1.36, of every Job from 1.37, pointing at a PodGroup it made), so an annotation or label that names a
 * group wins over a different {@code spec.schedulingGroup}. A pod whose annotation and label name two different
 * groups belongs to none: {@link #membershipOf} reports the conflict, and the scheduler refuses the pod with that text
 * until it is fixed.
 */
public final class GangMembership {
    public static final String GROUP_NAME = "scheduling.k8s.io/group-name";
    public static final String VOLCANO_GROUP_NAME = "scheduling.volcano.sh/group-name";
    public static final String TASK_SPEC = "volcano.sh/task-spec";
    /** scheduler-plugins' coscheduling label naming the pod's PodGroup. */
    public static final String POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group";
    /** How a pod names a Kubernetes PodGroup, for messages. */
    public static final String SCHEDULING_GROUP_FIELD = "spec.schedulingGroup.podGroupName";

    /**
     * A pod's gang as all its declarations say: {@code gang} null for a single pod; {@code conflict} non-empty (and
     * {@code gang} null) when the pod names two different groups.
     */
    public record Membership(GangKey gang, String conflict) {
        public static final Membership NONE = new Membership(null, "");

        public Membership {
            conflict = conflict == null ? "" : conflict;
        }
    }
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

    /** The label keys the decoders must keep. */
    public static boolean isRelevantLabel(String labelKey) {
        return POD_GROUP_LABEL.equals(labelKey);
    }

    /** Only the labels gang membership needs (null when none). */
    public static Map<String, String> relevantLabelsOnly(Map<String, String> labels) {
        String group = labels == null ? null : labels.get(POD_GROUP_LABEL);
        return group == null ? null : Map.of(POD_GROUP_LABEL, group);
    }

    /**
     * The gang of a pod in {@code namespace}, from all three ways of naming one: the annotation or the label (a
     * conflict when they differ), else {@code spec.schedulingGroup}.
     *
     * @param annotations        the pod's annotations (Volcano), or null
     * @param labels             the pod's labels (scheduler-plugins), or null
     * @param schedulingGroup    {@code spec.schedulingGroup.podGroupName} (Kubernetes), or null
     */
    public static Membership membershipOf(String namespace, Map<String, String> annotations, Map<String, String> labels,
                                          String schedulingGroup) {
        List<String[]> named = new ArrayList<>(3); // {group, how}
        GangKey volcano = gangOf(namespace, annotations);
        if (volcano != null) {
            String how = annotations.get(GROUP_NAME) != null && !annotations.get(GROUP_NAME).isEmpty() ? GROUP_NAME : VOLCANO_GROUP_NAME;
            named.add(new String[] {volcano.name(), "annotation " + how});
        }
        String label = labels == null ? null : labels.get(POD_GROUP_LABEL);
        if (label != null && !label.isEmpty()) {
            named.add(new String[] {label, "label " + POD_GROUP_LABEL});
        }
        if (named.isEmpty() && schedulingGroup != null && !schedulingGroup.isEmpty()) {
            named.add(new String[] {schedulingGroup, SCHEDULING_GROUP_FIELD}); // only when neither annotation nor label names one
        }
        if (named.isEmpty()) {
            return Membership.NONE;
        }
        String[] first = named.get(0);
        for (String[] other : named.subList(1, named.size())) {
            if (!other[0].equals(first[0])) {
                return new Membership(null, "pod names two different groups: \"" + first[0] + "\" (" + first[1] + ") and \""
                        + other[0] + "\" (" + other[1] + "); a pod can belong to one gang only");
            }
        }
        return new Membership(new GangKey(namespace, first[0]), "");
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
        if ((pod.gang() == null && !pod.hasMembershipConflict()) || podScheduler == null || podScheduler.isEmpty() || podScheduler.equals(ours)) {
            return pod;
        }
        return new Pod(pod.id(), pod.resourceVersion(), pod.request(), null, "", pod.priority(), pod.nodeName(), pod.phase(), "",
                pod.schedulerName(), pod.terminating(), pod.neverPreempts(), pod.graceSeconds(), pod.constraints(), pod.nominatedNodeName());
    }

    public static String taskOf(Map<String, String> annotations) {
        String task = annotations == null ? null : annotations.get(TASK_SPEC);
        return task == null ? "" : task;
    }
}
