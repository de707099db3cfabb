package dev.muster.server.sync;

import dev.muster.core.model.GangMembership;
import io.kubernetes.client.common.KubernetesObject;
import io.kubernetes.client.informer.TransformFunc;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.util.ArrayList;
import java.util.List;

/**
 * Informer transform that keeps of each pod only what {@link dev.muster.common.kube.PodConverter} reads: identity,
 * resourceVersion, the gang annotations, the gang label, {@code spec.schedulingGroup}, node name, priority, scheduler name, container requests and restart
 * policies, overhead, pod-level requests, and phase. A cluster's pod cache is the extender's largest memory user;
 * env, volumes, probes, managed fields and status conditions are dropped before they are cached. Other objects (the
 * informer's {@code DeletedFinalStateUnknown} wrapper) pass through unchanged. Stateless and thread-safe.
 */
final class SlimPods implements TransformFunc {
    @Override
    public KubernetesObject transform(KubernetesObject obj) {
        return obj instanceof V1Pod pod ? slim(pod) : obj;
    }

    static V1Pod slim(V1Pod pod) {
        V1ObjectMeta m = pod.getMetadata();
        V1ObjectMeta meta = m == null ? null : new V1ObjectMeta()
                .name(m.getName()).namespace(m.getNamespace()).uid(m.getUid()).resourceVersion(m.getResourceVersion())
                .deletionTimestamp(m.getDeletionTimestamp()).annotations(GangMembership.relevantOnly(m.getAnnotations()))
                .labels(GangMembership.relevantLabelsOnly(m.getLabels()));
        V1PodSpec s = pod.getSpec();
        V1PodSpec spec = s == null ? null : new V1PodSpec()
                .nodeName(s.getNodeName()).priority(s.getPriority()).schedulerName(s.getSchedulerName())
                .containers(containers(s.getContainers())).initContainers(containers(s.getInitContainers()))
                .overhead(s.getOverhead()).resources(requestsOnly(s.getResources())).schedulingGroup(s.getSchedulingGroup());
        V1PodStatus status = pod.getStatus() == null ? null : new V1PodStatus().phase(pod.getStatus().getPhase());
        return new V1Pod().apiVersion(pod.getApiVersion()).kind(pod.getKind()).metadata(meta).spec(spec).status(status);
    }


    private static List<V1Container> containers(List<V1Container> list) {
        if (list == null) {
            return null;
        }
        List<V1Container> out = new ArrayList<>(list.size());
        for (V1Container c : list) {
            out.add(new V1Container().name(c.getName()).restartPolicy(c.getRestartPolicy()).resources(requestsOnly(c.getResources())));
        }
        return out;
    }

    private static V1ResourceRequirements requestsOnly(V1ResourceRequirements r) {
        return r == null || r.getRequests() == null ? null : new V1ResourceRequirements().requests(r.getRequests());
    }
}
