package dev.muster.controller.sync;

import com.google.gson.Gson;
import com.google.gson.JsonObject;
import dev.muster.common.kube.PodConverter;
import dev.muster.controller.writer.StatusJson;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.status.PodGroupStatus;
import dev.muster.core.status.PodObservation;
import dev.muster.core.status.QueueStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import java.util.Map;

/**
 * Kubernetes objects → what the controller observes: a pod's gang, phase and binding (nothing else of a pod
 * matters for status), and the status a Queue or PodGroup shows in the API ({@link StatusJson}). Identity and
 * specs use the shared converters of {@code dev.muster.common.kube}. Stateless and thread-safe.
 */
public final class KubeObservations {
    private static final Gson GSON = new Gson();

    private KubeObservations() {}

    /**
     * The pod as its gang's status counts it. A pod being deleted that has not finished (a {@code deletionTimestamp},
     * phase neither Succeeded nor Failed: a deleted member its kubelet is terminating, or one evicted from a dead node
     * that stays until the node is gone) has left its gang — it is neither running nor waiting, as Volcano counts a
     * releasing task — so a gang that lost members is reported short at once, not when their kubelet confirms.
     *
     * @throws dev.muster.common.kube.ConversionException when the pod has no uid or name
     */
    public static PodObservation pod(V1Pod pod) {
        PodId id = PodConverter.idOf(pod);
        PodPhase phase = PodPhase.parse(pod.getStatus() == null ? null : pod.getStatus().getPhase());
        boolean leaving = pod.getMetadata().getDeletionTimestamp() != null && !phase.isTerminal();
        GangKey gang = leaving ? null : PodConverter.membershipOf(id.namespace(), pod).gang();
        boolean bound = pod.getSpec() != null && pod.getSpec().getNodeName() != null && !pod.getSpec().getNodeName().isEmpty();
        return new PodObservation(id.uid(), gang, phase, bound, owners(id.namespace(), pod));
    }

    /** As scheduler-plugins' {@code occupiedBy}: each owner reference as {@code namespace/name}, sorted, comma-separated. */
    static String owners(String namespace, V1Pod pod) {
        var refs = pod.getMetadata() == null ? null : pod.getMetadata().getOwnerReferences();
        if (refs == null || refs.isEmpty()) {
            return "";
        }
        java.util.List<String> out = new java.util.ArrayList<>();
        for (var r : refs) {
            if (r.getName() != null && !r.getName().isEmpty()) {
                out.add(namespace + "/" + r.getName());
            }
        }
        java.util.Collections.sort(out);
        return String.join(",", out);
    }

    /**
     * The status a PodGroup of {@code api} shows, read back in its own shape ({@link StatusJson#parse}), or null when it
     * has none the controller can read.
     */
    public static PodGroupStatus podGroupStatus(dev.muster.core.model.GangApi api, JsonObject status) {
        return status == null ? null : StatusJson.parse(api, GSON.fromJson(status, Map.class));
    }

    /** The Queue status the API shows, or null when it has none (or none the controller can read). */
    public static QueueStatus queueStatus(JsonObject status) {
        return status == null ? null : StatusJson.parseQueue(GSON.fromJson(status, Map.class));
    }

    /** The PodGroup status the API shows, or null when it has none (or none the controller can read). */
    public static PodGroupStatus podGroupStatus(JsonObject status) {
        return status == null ? null : StatusJson.parsePodGroup(GSON.fromJson(status, Map.class));
    }
}
