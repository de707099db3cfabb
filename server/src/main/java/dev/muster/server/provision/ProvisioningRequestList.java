package dev.muster.server.provision;

import dev.muster.common.kube.RawCustomObjectList;

/** A list of ProvisioningRequests as the API returns it (each item given its apiVersion). Not thread-safe. */
public final class ProvisioningRequestList extends RawCustomObjectList<ProvisioningRequestObject> {
    public ProvisioningRequestList() {
        super(RequestObjects.API_VERSION, "ProvisioningRequest");
    }
}
