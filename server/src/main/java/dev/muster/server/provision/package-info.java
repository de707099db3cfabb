/**
 * All-or-nothing scale-up, the Kubernetes side: whether cluster-autoscaler's ProvisioningRequest API
 * ({@code autoscaling.x-k8s.io/v1}) is served, the requests and their PodTemplates made from a gang's pods
 * ({@link dev.muster.server.provision.RequestObjects}, {@link dev.muster.server.provision.KubeProvisionRequests}), an
 * informer on Muster's requests, and the loop that feeds the core's {@link dev.muster.core.provision.Provisioning}
 * ({@link dev.muster.server.provision.ProvisionSync}). Off unless {@code --provisioning}.
 */
package dev.muster.server.provision;
