package dev.muster.controller.sync;

import dev.muster.core.model.GangMembership;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;

/**
 * Informer transform for the controller's pod cache: keeps only identity, the gang annotations, label and scheduling group, the node name and
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
                .resourceVersion(m.getResourceVersion()).annotations(GangMembership.relevantOnly(m.getAnnotations()))
                .labels(GangMembership.relevantLabelsOnly(m.getLabels()));
        V1PodSpec spec = pod.getSpec() == null ? null : new V1PodSpec().nodeName(pod.getSpec().getNodeName())
                .schedulingGroup(pod.getSpec().getSchedulingGroup());
        V1PodStatus status = pod.getStatus() == null ? null : new V1PodStatus().phase(pod.getStatus().getPhase());
        return new V1Pod().apiVersion(pod.getApiVersion()).kind(pod.getKind()).metadata(meta).spec(spec).status(status);
    }

}
