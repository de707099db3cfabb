package dev.muster.common.kube;

import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.List;
import java.util.Map;

/**
 * What a slim pod shares with the pods decoded before it, whichever encoding it was read from ({@link SlimPodJson},
 * {@link SlimPodProto}): the pods of one template on one node have equal slim specs, most pods one of a few statuses,
 * the pods of one owner equal owner references and labels. The informers' pod cache keeps every pod of the cluster
 * until it is deleted, and a restart lists them all before it is ready, so each of those is kept once
 * ({@link Interner}), and the empty lists and maps client-java's models are born with are replaced by the immutable
 * empty ones. What is left a pod's own is its metadata's name, uid and resource version. Equal to the pod it replaces
 * ({@code equals}); the shared parts must not be changed, which holds for the informers' objects (read-only).
 * Thread-safe.
 */
final class SlimPodSharing {
    /** Distinct values of each kind kept for sharing before an interner starts afresh (e.g. templates × nodes). */
    static final int CAPACITY = 1 << 16;

    private static final Interner<V1PodSpec> SPECS = new Interner<>(CAPACITY);
    private static final Interner<V1PodStatus> STATUSES = new Interner<>(CAPACITY);
    private static final Interner<Map<String, String>> STRING_MAPS = new Interner<>(CAPACITY);
    private static final Interner<List<V1OwnerReference>> OWNERS = new Interner<>(CAPACITY);
    private static final Interner<String> STRINGS = new Interner<>(CAPACITY);

    private SlimPodSharing() {}

    /** {@code pod}, its parts replaced by the equal ones seen before. */
    static V1Pod share(V1Pod pod) {
        pod.setApiVersion(string(pod.getApiVersion()));
        pod.setKind(string(pod.getKind()));
        V1ObjectMeta m = pod.getMetadata();
        if (m != null) {
            m.setNamespace(string(m.getNamespace()));
            m.setLabels(map(m.getLabels()));
            m.setAnnotations(map(m.getAnnotations()));
            m.setOwnerReferences(owners(m.getOwnerReferences()));
            m.setFinalizers(empty(m.getFinalizers()));
            m.setManagedFields(empty(m.getManagedFields()));
        }
        pod.setSpec(SPECS.intern(pod.getSpec()));
        pod.setStatus(STATUSES.intern(pod.getStatus()));
        return pod;
    }

    /** {@code s}, or the equal string seen before (namespaces, kinds, API versions). */
    static String string(String s) {
        return STRINGS.intern(s);
    }

    private static Map<String, String> map(Map<String, String> m) {
        return m == null ? null : m.isEmpty() ? Map.of() : STRING_MAPS.intern(m);
    }

    private static List<V1OwnerReference> owners(List<V1OwnerReference> owners) {
        return owners == null ? null : owners.isEmpty() ? List.of() : OWNERS.intern(owners);
    }

    private static <T> List<T> empty(List<T> list) {
        return list != null && list.isEmpty() ? List.of() : list;
    }
}
