package dev.muster.common.kube;

import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.GenericKubernetesApi;

/**
 * A {@code policy/v1} PodDisruptionBudget, read raw: Muster reads only {@code spec.selector},
 * {@code status.disruptionsAllowed}, {@code status.observedGeneration} and {@code metadata.generation}. Read raw rather
 * than as client-java's {@code V1PodDisruptionBudget}, whose strict model rejects a whole list over one field an API
 * server newer than the model adds.
 */
public final class KubeDisruptionBudget extends RawCustomObject {
    public static final String GROUP = "policy";
    public static final String VERSION = "v1";
    public static final String RESOURCE = "poddisruptionbudgets";

    public KubeDisruptionBudget() {
        setKind("PodDisruptionBudget");
    }

    /** {@code PodDisruptionBudgetList}. */
    public static final class Items extends RawCustomObjectList<KubeDisruptionBudget> {
        public Items() {
            super(GROUP + "/" + VERSION, "PodDisruptionBudget");
        }
    }

    /** A client for PodDisruptionBudgets (all namespaces when listed or watched without one). */
    public static GenericKubernetesApi<KubeDisruptionBudget, Items> api(ApiClient client) {
        return new GenericKubernetesApi<>(KubeDisruptionBudget.class, Items.class, GROUP, VERSION, RESOURCE, client);
    }
}
