package dev.muster.common.kube;

import io.kubernetes.client.openapi.models.V1Affinity;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerPort;
import io.kubernetes.client.openapi.models.V1NodeAffinity;
import io.kubernetes.client.openapi.models.V1NodeSelector;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodAffinity;
import io.kubernetes.client.openapi.models.V1PodAffinityTerm;
import io.kubernetes.client.openapi.models.V1PodAntiAffinity;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1TopologySpreadConstraint;
import io.kubernetes.client.openapi.models.V1Volume;
import java.util.ArrayList;
import java.util.List;

/**
 * What a slim pod keeps of its spec's placement fields, whichever encoding they were read from
 * ({@link SlimPodPlacementJson}, {@link SlimPodPlacementProto}): {@code nodeSelector}, the required node affinity
 * (terms, expressions, fields), {@code tolerations}, {@code schedulingGates}, and markers for what only kube-scheduler
 * judges — a required pod (anti-)affinity (one empty term), topology spread constraints with {@code DoNotSchedule}
 * (their mode only), volumes of a persistent volume claim or ephemeral (name and claim only), resource claims (names
 * only), container ports that take a port of the node (their {@code hostPort} only). Lists are set only when something is kept, so both encodings give equal objects. A bound pod keeps none of
 * them ({@link #trim}): they matter only before it is placed. Stateless and thread-safe.
 */
final class SlimPodPlacement {
    private SlimPodPlacement() {}

    /** A bound pod's placement fields are dropped: only pending pods are placed. */
    static void trim(V1Pod pod) {
        V1PodSpec s = pod.getSpec();
        if (s == null || s.getNodeName() == null || s.getNodeName().isEmpty()) {
            return;
        }
        s.setNodeSelector(null);
        s.setAffinity(null);
        s.setTolerations(null);
        s.setSchedulingGates(null);
        s.setTopologySpreadConstraints(null);
        s.setVolumes(null);
        s.setResourceClaims(null);
        noPorts(s.getContainers());
        noPorts(s.getInitContainers());
    }

    private static void noPorts(List<V1Container> containers) {
        if (containers != null) {
            for (V1Container c : containers) {
                c.setPorts(null);
            }
        }
    }

    /** The marker of a port that takes a port of the node ({@code hostPort} above 0), or null (not kept). */
    static V1ContainerPort hostPort(Integer hostPort) {
        return hostPort == null || hostPort <= 0 ? null : new V1ContainerPort().hostPort(hostPort);
    }

    /** The marker of a required pod affinity: one empty term (kube-scheduler judges the terms). */
    static V1PodAffinity requiredPodAffinity() {
        return new V1PodAffinity().requiredDuringSchedulingIgnoredDuringExecution(List.of(new V1PodAffinityTerm()));
    }

    /** The marker of a required pod anti-affinity: one empty term. */
    static V1PodAntiAffinity requiredPodAntiAffinity() {
        return new V1PodAntiAffinity().requiredDuringSchedulingIgnoredDuringExecution(List.of(new V1PodAffinityTerm()));
    }

    /** A node affinity of {@code required} terms, or null when there are none (preferred terms are not kept). */
    static V1NodeAffinity nodeAffinity(V1NodeSelector required) {
        return required == null ? null : new V1NodeAffinity().requiredDuringSchedulingIgnoredDuringExecution(required);
    }

    /** {@code a}, or null when it keeps nothing. */
    static V1Affinity noAffinity(V1Affinity a) {
        return a == null || (a.getNodeAffinity() == null && a.getPodAffinity() == null && a.getPodAntiAffinity() == null) ? null : a;
    }

    /** The marker of a topology spread constraint that filters ({@code DoNotSchedule}: its mode only), or null. */
    static V1TopologySpreadConstraint spread(String whenUnsatisfiable) {
        return NodeConstraintsConverter.DO_NOT_SCHEDULE.equals(whenUnsatisfiable)
                ? new V1TopologySpreadConstraint().whenUnsatisfiable(whenUnsatisfiable) : null;
    }

    /** {@code v} when it is kept (a persistent volume claim's or an ephemeral volume), else null. */
    static V1Volume kept(V1Volume v) {
        return v.getPersistentVolumeClaim() == null && v.getEphemeral() == null ? null : v;
    }

    /** {@code list} with {@code item} added (a new list when null); a null item (not kept) leaves it as it was. */
    static <T> List<T> add(List<T> list, T item) {
        if (item == null) {
            return list;
        }
        List<T> out = list == null ? new ArrayList<>(2) : list;
        out.add(item);
        return out;
    }

    static String emptyToNull(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
