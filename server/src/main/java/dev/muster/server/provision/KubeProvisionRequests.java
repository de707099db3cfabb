package dev.muster.server.provision;

import dev.muster.core.model.GangKey;
import dev.muster.core.provision.Provisioning;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodTemplate;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.KubernetesApiResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes and deletes a gang's ProvisioningRequest and its PodTemplates through the API ({@link RequestObjects} builds
 * them). Creating: the pods are read, the templates created first (an existing one of the same name, left by a process
 * that stopped half way, is replaced), then the request, so an autoscaler never sees a request whose templates are
 * missing; a request that exists already (made by an earlier process) counts as made. Deleting: the request, then its
 * templates (by label); what is already gone counts as deleted. Called from one thread ({@link ProvisionSync}'s loop).
 */
final class KubeProvisionRequests {
    private static final System.Logger LOG = System.getLogger(KubeProvisionRequests.class.getName());
    private final CoreV1Api core;
    private final GenericKubernetesApi<ProvisioningRequestObject, ProvisioningRequestList> requests;
    private final Provisioning.Settings settings;

    KubeProvisionRequests(ApiClient client, Provisioning.Settings settings) {
        this.core = new CoreV1Api(client);
        this.requests = api(client);
        this.settings = settings;
    }

    static GenericKubernetesApi<ProvisioningRequestObject, ProvisioningRequestList> api(ApiClient client) {
        return new GenericKubernetesApi<>(ProvisioningRequestObject.class, ProvisioningRequestList.class, RequestObjects.GROUP,
                RequestObjects.VERSION, RequestObjects.PLURAL, client);
    }

    /** Makes the request of {@code w}; returns null when it exists now, else why not. */
    String create(Provisioning.Work.Create w) {
        GangKey gang = w.gang();
        try {
            List<V1Pod> pods = new ArrayList<>();
            for (String name : w.pods()) {
                try {
                    pods.add(core.readNamespacedPod(name, gang.namespace()).execute());
                } catch (ApiException e) {
                    if (e.getCode() != 404) {
                        throw e;
                    }
                }
            }
            List<RequestObjects.Shape> shapes = RequestObjects.shapes(w.name(), gang, pods);
            for (RequestObjects.Shape s : shapes) {
                createTemplate(s.template());
            }
            KubernetesApiResponse<ProvisioningRequestObject> r = requests.create(RequestObjects.request(w.name(), gang, settings, shapes));
            if (r.isSuccess() || r.getHttpStatusCode() == 409) {
                LOG.log(System.Logger.Level.INFO, "asked the autoscaler for room for " + pods.size() + " pods of gang " + gang + ": ProvisioningRequest "
                        + gang.namespace() + "/" + w.name() + (r.isSuccess() ? "" : " (it existed)"));
                return null;
            }
            return "HTTP " + r.getHttpStatusCode() + (r.getStatus() == null ? "" : ": " + r.getStatus().getMessage());
        } catch (ApiException e) {
            return "HTTP " + e.getCode() + ": " + e.getResponseBody();
        } catch (IllegalArgumentException | IllegalStateException e) {
            return e.getMessage();
        }
    }

    /** Deletes the request of {@code w} and its templates; returns null when they are gone, else why not. */
    String delete(Provisioning.Work.Delete w) {
        GangKey gang = w.gang();
        try {
            KubernetesApiResponse<ProvisioningRequestObject> r = requests.delete(gang.namespace(), w.name());
            if (!r.isSuccess() && r.getHttpStatusCode() != 404) {
                return "HTTP " + r.getHttpStatusCode() + (r.getStatus() == null ? "" : ": " + r.getStatus().getMessage());
            }
            core.deleteCollectionNamespacedPodTemplate(gang.namespace())
                    .labelSelector(RequestObjects.MANAGED_BY + "=" + RequestObjects.MUSTER + "," + RequestObjects.REQUEST_LABEL + "="
                            + RequestObjects.labelValue(w.name())).execute();
            LOG.log(System.Logger.Level.INFO, "deleted ProvisioningRequest " + gang.namespace() + "/" + w.name() + " of gang " + gang);
            return null;
        } catch (ApiException e) {
            return "HTTP " + e.getCode() + ": " + e.getResponseBody();
        }
    }

    private void createTemplate(V1PodTemplate t) throws ApiException {
        String ns = t.getMetadata().getNamespace();
        try {
            core.createNamespacedPodTemplate(ns, t).execute();
        } catch (ApiException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            core.deleteNamespacedPodTemplate(t.getMetadata().getName(), ns).execute(); // left by a process that stopped half way
            core.createNamespacedPodTemplate(ns, t).execute();
        }
    }
}
