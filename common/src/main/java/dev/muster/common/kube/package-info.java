/**
 * client-java adapters shared by the extender and the controller: building {@link io.kubernetes.client.openapi.ApiClient}s
 * ({@link dev.muster.common.kube.KubeClients}), translating API objects into core model types
 * ({@link dev.muster.common.kube.PodConverter}, {@link dev.muster.common.kube.PodGroupConverter},
 * {@link dev.muster.common.kube.QueueConverter}), and the Volcano CRD models
 * ({@link dev.muster.common.kube.VolcanoPodGroup}, {@link dev.muster.common.kube.VolcanoQueue}).
 *
 * <p>Converters are stateless and thread-safe. Quantities are parsed by the core's
 * {@link dev.muster.core.resources.Quantities} and requests folded by {@link dev.muster.core.resources.PodRequests};
 * this package owns no arithmetic of its own. An object that cannot be converted raises
 * {@link dev.muster.common.kube.ConversionException} naming the object and the field, so that callers (informer
 * handlers) can log and skip that one object.
 */
package dev.muster.common.kube;
