package dev.muster.controller.sync;

import dev.muster.core.model.GangMembership;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;

/**
 * Informer transform for the controller's pod cache: keeps only identity, the deletion timestamp, the gang annotations, label and scheduling group, the owners' names, the node name and
 * the phase — what {@link KubeObservations#pod} reads. Everything else is dropped before it is cached (the pod
 * cache is the controller's largest memory user). Other objects pass through unchanged. Stateless, thread-safe.
 */
final class MemberPods implements TransformFunc {
    @Override
    public KubernetesObject transform(KubernetesObject obj) {
        if (!(obj instanceof V1Pod pod)) {
            return obj;
        }
        V1ObjectMeta m = pod.getMetadata();
        V1ObjectMeta meta = m == null ? null : new V1ObjectMeta().name(m.getName()).namespace(m.getNamespace()).uid(m.getUid())
                .resourceVersion(m.getResourceVersion()).deletionTimestamp(m.getDeletionTimestamp()).annotations(GangMembership.relevantOnly(m.getAnnotations()))
                .labels(GangMembership.relevantLabelsOnly(m.getLabels())).ownerReferences(owners(m));
        V1PodSpec spec = pod.getSpec() == null ? null : new V1PodSpec().nodeName(pod.getSpec().getNodeName())
                .schedulingGroup(pod.getSpec().getSchedulingGroup());
        V1PodStatus status = pod.getStatus() == null ? null : new V1PodStatus().phase(pod.getStatus().getPhase());
        return new V1Pod().apiVersion(pod.getApiVersion()).kind(pod.getKind()).metadata(meta).spec(spec).status(status);
    }

    /** The owners' names only (scheduler-plugins' {@code occupiedBy}), or null. */
    private static java.util.List<V1OwnerReference> owners(V1ObjectMeta m) {
        if (m.getOwnerReferences() == null || m.getOwnerReferences().isEmpty()) {
            return null;
        }
        java.util.List<V1OwnerReference> out = new java.util.ArrayList<>(m.getOwnerReferences().size());
        for (V1OwnerReference r : m.getOwnerReferences()) {
            out.add(new V1OwnerReference().name(r.getName()));
        }
        return out;
    }

}
