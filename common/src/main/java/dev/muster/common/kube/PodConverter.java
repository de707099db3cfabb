package dev.muster.common.kube;

import dev.muster.core.model.GangMembership;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.PodRequests;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@link V1Pod} → core {@link Pod}: identity, effective request (kube-scheduler's rule, computed by
 * {@link PodRequests#effective}), gang (any of the three APIs' ways, {@link GangMembership}) and Volcano task, spec.nodeName,
 * status.phase and spec.priority, status.nominatedNodeName, spec.schedulerName, whether metadata.deletionTimestamp is
 * set, the preemption terms ({@link #withPreemption}) and the node constraints and scheduling gates
 * ({@link NodeConstraintsConverter}). Stateless and thread-safe.
 */
public final class PodConverter {
    /** The init-container restartPolicy that makes it a sidecar. */
    static final String RESTART_ALWAYS = "Always";
    /** What the API server writes into an empty spec.schedulerName. */
    static final String DEFAULT_SCHEDULER = "default-scheduler";

    private PodConverter() {}

    /**
     * Converts {@code pod}.
     *
     * @throws ConversionException naming the pod and the field when it has no uid/name or an invalid quantity
     */
    public static Pod toCore(V1Pod pod) {
        PodId id = idOf(pod);
        V1PodSpec spec = pod.getSpec();
        Resources request;
        String nodeName = null;
        int priority = 0;
        if (spec == null) {
            request = PodRequests.effective(List.of(), List.of(), null, null);
        } else {
            request = PodRequests.effective(
                    containers(id, "container", spec.getContainers()),
                    containers(id, "init container", spec.getInitContainers()),
                    requestsOf(() -> "pod " + id + " spec.resources", spec.getResources()),
                    ResourceLists.fromQuantities(() -> "pod " + id + " spec.overhead", spec.getOverhead()));
            nodeName = spec.getNodeName() == null || spec.getNodeName().isEmpty() ? null : spec.getNodeName();
            priority = spec.getPriority() == null ? 0 : spec.getPriority();
        }
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        GangMembership.Membership membership = membershipOf(id.namespace(), pod);
        String task = GangMembership.taskOf(annotations);
        PodPhase phase = PodPhase.parse(pod.getStatus() == null ? null : pod.getStatus().getPhase());
        // the API server defaults an empty spec.schedulerName to the default scheduler's
        String scheduler = spec == null || spec.getSchedulerName() == null || spec.getSchedulerName().isEmpty()
                ? DEFAULT_SCHEDULER : spec.getSchedulerName();
        Pod converted = new Pod(id, pod.getMetadata().getResourceVersion(), request, membership.gang(), task, priority, nodeName, phase,
                membership.conflict(), scheduler, pod.getMetadata().getDeletionTimestamp() != null);
        if (pod.getStatus() != null && pod.getStatus().getNominatedNodeName() != null) {
            converted = converted.withNomination(pod.getStatus().getNominatedNodeName());
        }
        if (spec == null) {
            return converted;
        }
        Pod withTerms = withPreemption(converted, spec.getPreemptionPolicy(), spec.getTerminationGracePeriodSeconds());
        NodeConstraints constraints = nodeName == null ? NodeConstraintsConverter.of(spec) : NodeConstraints.NONE; // placed: moot
        return constraints == NodeConstraints.NONE ? withTerms : withTerms.withConstraints(constraints);
    }

    /** {@code spec.preemptionPolicy} that keeps a pod from preempting anyone (its PriorityClass's, copied by admission). */
    public static final String PREEMPT_NEVER = "Never";

    /**
     * {@code pod} with its preemption terms, from however it was read (a cluster object, a verb's JSON or protobuf):
     * {@code preemptionPolicy} {@value #PREEMPT_NEVER} → it never preempts; {@code terminationGracePeriodSeconds}
     * null → Kubernetes' default ({@link Pod#DEFAULT_GRACE_SECONDS}), negative → 1 (what the API server makes of a
     * negative grace period).
     */
    public static Pod withPreemption(Pod pod, String preemptionPolicy, Long terminationGracePeriodSeconds) {
        long grace = terminationGracePeriodSeconds == null ? Pod.DEFAULT_GRACE_SECONDS
                : terminationGracePeriodSeconds < 0 ? 1 : terminationGracePeriodSeconds;
        boolean never = PREEMPT_NEVER.equals(preemptionPolicy);
        return never == pod.neverPreempts() && grace == pod.graceSeconds() ? pod : pod.withPreemption(never, grace);
    }

    /** The pod's gang, from all three APIs' ways of naming one (annotation, {@code spec.schedulingGroup}, label). */
    public static GangMembership.Membership membershipOf(String namespace, V1Pod pod) {
        V1ObjectMeta meta = pod.getMetadata();
        V1PodSpec spec = pod.getSpec();
        String schedulingGroup = spec == null || spec.getSchedulingGroup() == null ? null : spec.getSchedulingGroup().getPodGroupName();
        return GangMembership.membershipOf(namespace, meta == null ? null : meta.getAnnotations(), meta == null ? null : meta.getLabels(),
                schedulingGroup);
    }

    /**
     * The pod's identity.
     *
     * @throws ConversionException when metadata, uid, namespace or name is missing
     */
    public static PodId idOf(V1Pod pod) {
        V1ObjectMeta meta = pod.getMetadata();
        if (meta == null || isEmpty(meta.getName())) {
            throw new ConversionException("pod without metadata.name");
        }
        String namespace = isEmpty(meta.getNamespace()) ? "default" : meta.getNamespace();
        if (isEmpty(meta.getUid())) {
            throw new ConversionException("pod " + namespace + "/" + meta.getName() + " has no metadata.uid");
        }
        return new PodId(meta.getUid(), namespace, meta.getName());
    }

    private static List<PodRequests.Container> containers(PodId id, String kind, List<V1Container> list) {
        if (list == null || list.isEmpty()) {
            return List.of();
        }
        List<PodRequests.Container> out = new ArrayList<>(list.size());
        for (V1Container c : list) {
            String name = c.getName() == null ? "?" : c.getName();
            Resources requests = requestsOf(() -> "pod " + id + " " + kind + " \"" + name + "\" requests", c.getResources());
            out.add(new PodRequests.Container(requests, RESTART_ALWAYS.equals(c.getRestartPolicy())));
        }
        return out;
    }

    private static Resources requestsOf(Supplier<String> where, V1ResourceRequirements requirements) {
        return requirements == null ? Resources.ZERO : ResourceLists.fromQuantities(where, requirements.getRequests());
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
