package dev.muster.server.http.wire;

import dev.muster.core.model.Pod;
import java.util.Map;
import java.util.Objects;

/**
 * The part of a wire Pod that the extender's decisions use.
 *
 * @param pod           the core pod: uid, namespace, name, resourceVersion, effective request (as
 *                      kube-scheduler computes it), gang and task from annotations, spec.priority,
 *                      spec.nodeName, status.phase
 * @param schedulerName spec.schedulerName, or "" when absent
 * @param annotations   only the annotations the extender reads: those for which
 *                      {@link dev.muster.core.model.GangMembership#isRelevant} holds, and {@code muster.dev/*} keys;
 *                      unmodifiable
 * @param softPreferences the pod carries something kube-scheduler's own score plugins weigh: preferred node
 *                      affinity, pod affinity or anti-affinity, a {@code ScheduleAnyway} topology spread constraint, or
 *                      no constraints but a ReplicaSet, StatefulSet or ReplicationController owner (kube-scheduler's
 *                      default spreading); such a pod passes on every node that fits, never only on a node Muster picks
 * @param gangMarked    a container requests {@link dev.muster.core.resources.ResourceNames#GANG_MARKER}, so a
 *                      kube-scheduler configured with it as the bind extender's managed resource binds this pod
 *                      through Muster
 */
public record WirePod(Pod pod, String schedulerName, Map<String, String> annotations, boolean softPreferences,
                      boolean gangMarked) {
    /** Annotation key prefix the decoder keeps besides the gang membership keys. */
    public static final String MUSTER_ANNOTATION_PREFIX = "muster.dev/";

    public WirePod {
        Objects.requireNonNull(pod, "pod");
        schedulerName = schedulerName == null ? "" : schedulerName;
        annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    }

    /** A pod without soft preferences or the gang marker. */
    public WirePod(Pod pod, String schedulerName, Map<String, String> annotations) {
        this(pod, schedulerName, annotations, false, false);
    }

    /** The pod's UID, the key of every per-pod decision. */
    public String uid() {
        return pod.uid();
    }
}
