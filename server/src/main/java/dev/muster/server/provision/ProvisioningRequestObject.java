package dev.muster.server.provision;

import dev.muster.common.kube.RawCustomObject;

/** A ProvisioningRequest ({@code autoscaling.x-k8s.io/v1}) read without a schema: raw spec and status. */
public final class ProvisioningRequestObject extends RawCustomObject {}
