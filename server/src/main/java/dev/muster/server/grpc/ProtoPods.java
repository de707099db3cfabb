package dev.muster.server.grpc;

import dev.muster.common.kube.PodConverter;
import dev.muster.common.rpc.ProtoConverters;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.resources.InvalidQuantityException;
import dev.muster.core.resources.PodRequests;
import dev.muster.core.resources.ResourceList;
import dev.muster.core.resources.Resources;
import dev.muster.proto.v1.Container;
import dev.muster.proto.v1.PodSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The gRPC {@link PodSpec} → core {@link Pod}, with the same rules as the HTTP wire codec: quantities
 * parsed exactly, the effective request as kube-scheduler computes it, gang membership from the Volcano
 * annotations, the scheduler-plugins label or the Kubernetes scheduling group, the preemption terms as
 * {@link PodConverter#withPreemption} reads them, the nominated node. Bad input throws {@link IllegalArgumentException} naming the field.
 */
final class ProtoPods {
    private ProtoPods() {}

    static Pod toPod(PodSpec spec) {
        if (!spec.hasPod() || spec.getPod().getUid().isEmpty()) {
            throw new IllegalArgumentException("pod.pod.uid is required");
        }
        if (spec.getPod().getName().isEmpty() || spec.getPod().getNamespace().isEmpty()) {
            throw new IllegalArgumentException("pod.pod.name and pod.pod.namespace are required");
        }
        PodId id = ProtoConverters.fromProto(spec.getPod());
        List<PodRequests.Container> containers = containers("containers", spec.getContainersList());
        List<PodRequests.Container> inits = containers("init_containers", spec.getInitContainersList());
        Resources overhead = amounts("overhead", spec.getOverhead());
        Resources podLevel = amounts("pod_level_requests", spec.getPodLevelRequests());
        Resources request = PodRequests.effective(containers, inits, podLevel, overhead);
        Map<String, String> annotations = spec.getAnnotationsMap();
        GangMembership.Membership membership = GangMembership.membershipOf(id.namespace(), annotations, spec.getLabelsMap(),
                spec.getSchedulingGroup());
        if (!spec.getPreemptionPolicy().isEmpty() && !spec.getPreemptionPolicy().equals(PodConverter.PREEMPT_NEVER)
                && !spec.getPreemptionPolicy().equals("PreemptLowerPriority")) {
            throw new IllegalArgumentException("pod.preemption_policy: \"" + spec.getPreemptionPolicy()
                    + "\" is neither Never nor PreemptLowerPriority");
        }
        return PodConverter.withPreemption(new Pod(id, spec.getResourceVersion(), request, membership.gang(), GangMembership.taskOf(annotations),
                spec.getPriority(), null, PodPhase.PENDING, membership.conflict()), spec.getPreemptionPolicy(),
                spec.hasTerminationGracePeriodSeconds() ? spec.getTerminationGracePeriodSeconds() : null).withNomination(spec.getNominatedNodeName());
    }

    private static List<PodRequests.Container> containers(String field, List<Container> list) {
        List<PodRequests.Container> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            ResourceList b = new ResourceList(ResourceList.Names.KNOWN_ONLY, "requests");
            for (Map.Entry<String, String> r : list.get(i).getRequestsMap().entrySet()) {
                try {
                    b.put(r.getKey(), r.getValue());
                } catch (InvalidQuantityException e) {
                    throw new IllegalArgumentException("pod." + field + "[" + i + "].requests[" + r.getKey() + "]: " + e.getMessage());
                }
            }
            out.add(new PodRequests.Container(b.build(), list.get(i).getRestartable()));
        }
        return out;
    }

    private static Resources amounts(String field, dev.muster.proto.v1.ResourceList list) {
        ResourceList b = new ResourceList(ResourceList.Names.KNOWN_ONLY, field);
        for (Map.Entry<String, Long> r : list.getAmountsMap().entrySet()) {
            try {
                b.putAmount(r.getKey(), r.getValue());
            } catch (InvalidQuantityException e) {
                throw new IllegalArgumentException("pod." + field + "[" + r.getKey() + "]: " + e.getMessage());
            }
        }
        return b.build();
    }
}
