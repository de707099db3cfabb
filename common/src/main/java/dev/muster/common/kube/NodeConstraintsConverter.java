package dev.muster.common.kube;

import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.NodeTaint;
import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1NodeSelector;
import io.kubernetes.client.openapi.models.V1NodeSelectorRequirement;
import io.kubernetes.client.openapi.models.V1NodeSelectorTerm;
import io.kubernetes.client.openapi.models.V1PodSchedulingGate;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1Taint;
import io.kubernetes.client.openapi.models.V1Toleration;
import io.kubernetes.client.openapi.models.V1TopologySpreadConstraint;
import io.kubernetes.client.openapi.models.V1Volume;
import java.util.ArrayList;
import java.util.List;

/**
 * A pod spec's node constraints ({@code nodeSelector}, the required node affinity, {@code tolerations},
 * {@code schedulingGates}, and what only kube-scheduler judges) → core {@link NodeConstraints}; a node's
 * {@code NoSchedule} / {@code NoExecute} taints → core {@link NodeTaint}s. Stateless and thread-safe.
 */
public final class NodeConstraintsConverter {
    /** The topology spread mode that filters (the other, {@code ScheduleAnyway}, only scores). */
    static final String DO_NOT_SCHEDULE = "DoNotSchedule";

    private NodeConstraintsConverter() {}

    /** The constraints of {@code spec} ({@link NodeConstraints#NONE} when it has none, or is null). */
    public static NodeConstraints of(V1PodSpec spec) {
        if (spec == null) {
            return NodeConstraints.NONE;
        }
        V1Affinity affinity = spec.getAffinity();
        V1NodeSelector required = affinity == null || affinity.getNodeAffinity() == null ? null
                : affinity.getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution();
        List<NodeConstraints.Term> terms = null;
        if (required != null) {
            terms = new ArrayList<>();
            if (required.getNodeSelectorTerms() != null) {
                for (V1NodeSelectorTerm t : required.getNodeSelectorTerms()) {
                    terms.add(new NodeConstraints.Term(requirements(t.getMatchExpressions()), requirements(t.getMatchFields())));
                }
            }
        }
        List<NodeConstraints.Toleration> tolerations = new ArrayList<>();
        if (spec.getTolerations() != null) {
            for (V1Toleration t : spec.getTolerations()) {
                tolerations.add(new NodeConstraints.Toleration(t.getKey(), t.getOperator(), t.getValue(), t.getEffect()));
            }
        }
        List<String> gates = new ArrayList<>();
        if (spec.getSchedulingGates() != null) {
            for (V1PodSchedulingGate g : spec.getSchedulingGates()) {
                gates.add(g.getName() == null ? "" : g.getName());
            }
        }
        return new NodeConstraints(spec.getNodeSelector(), terms, tolerations, gates, undecided(spec)).orNone();
    }

    /** What only kube-scheduler judges, named for people ("" when nothing). */
    static String undecided(V1PodSpec spec) {
        List<String> what = new ArrayList<>(1);
        V1Affinity a = spec.getAffinity();
        if (a != null && a.getPodAffinity() != null && notEmpty(a.getPodAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())) {
            what.add("inter-pod affinity");
        }
        if (a != null && a.getPodAntiAffinity() != null
                && notEmpty(a.getPodAntiAffinity().getRequiredDuringSchedulingIgnoredDuringExecution())) {
            what.add("inter-pod anti-affinity");
        }
        if (spec.getTopologySpreadConstraints() != null) {
            for (V1TopologySpreadConstraint t : spec.getTopologySpreadConstraints()) {
                if (DO_NOT_SCHEDULE.equals(t.getWhenUnsatisfiable())) {
                    what.add("topology spread constraints");
                    break;
                }
            }
        }
        if (spec.getVolumes() != null) {
            for (V1Volume v : spec.getVolumes()) {
                if (v.getPersistentVolumeClaim() != null || v.getEphemeral() != null) {
                    what.add("persistent volumes");
                    break;
                }
            }
        }
        if (notEmpty(spec.getResourceClaims())) {
            what.add("resource claims");
        }
        if (takesHostPort(spec.getContainers()) || takesHostPort(spec.getInitContainers())) {
            what.add("host ports");
        }
        return String.join(", ", what);
    }

    private static boolean takesHostPort(List<V1Container> containers) {
        if (containers != null) {
            for (V1Container c : containers) {
                if (c.getPorts() != null) {
                    for (V1ContainerPort p : c.getPorts()) {
                        if (p.getHostPort() != null && p.getHostPort() > 0) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }

    /** The taints of a node that keep pods off it ({@code NoSchedule}, {@code NoExecute}). */
    public static List<NodeTaint> filteringTaints(List<V1Taint> taints) {
        if (taints == null || taints.isEmpty()) {
            return List.of();
        }
        List<NodeTaint> out = new ArrayList<>(taints.size());
        for (V1Taint t : taints) {
            if (NodeTaint.filters(t.getEffect()) && t.getKey() != null) {
                out.add(new NodeTaint(t.getKey(), t.getValue(), t.getEffect()));
            }
        }
        return out;
    }

    private static List<NodeConstraints.Requirement> requirements(List<V1NodeSelectorRequirement> list) {
        if (list == null || list.isEmpty()) {
            return List.of();
        }
        List<NodeConstraints.Requirement> out = new ArrayList<>(list.size());
        for (V1NodeSelectorRequirement r : list) {
            out.add(new NodeConstraints.Requirement(r.getKey() == null ? "" : r.getKey(), NodeConstraints.Operator.parse(r.getOperator()),
                    r.getValues()));
        }
        return out;
    }

    private static boolean notEmpty(List<?> l) {
        return l != null && !l.isEmpty();
    }
}
