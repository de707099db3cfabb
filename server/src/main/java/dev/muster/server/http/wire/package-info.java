/**
 * The kube-scheduler HTTP extender wire codec ({@code k8s.io/kube-scheduler/extender/v1} as JSON).
 *
 * <p>Owns: turning request bodies into the few values the extender's decisions need, and those
 * decisions into response bodies kube-scheduler accepts. It knows nothing about HTTP, the ledger or
 * gangs; the HTTP layer ({@code dev.muster.server.http}) calls it.
 *
 * <ul>
 *   <li>{@link dev.muster.server.http.wire.WireDecoder}: bodies → {@link dev.muster.server.http.wire.ExtenderArgs}
 *       (filter, prioritize), {@link dev.muster.server.http.wire.BindingArgs} (bind),
 *       {@link dev.muster.server.http.wire.PreemptionArgs} (preempt). A pod becomes a
 *       {@link dev.muster.server.http.wire.WirePod} holding a core {@link dev.muster.core.model.Pod}
 *       whose request is computed by {@link dev.muster.core.resources.PodRequests}.</li>
 *   <li>{@link dev.muster.server.http.wire.WireEncoder}: {@link dev.muster.core.scheduler.FilterResult},
 *       prioritize scores (as {@code HostPriority} lists), bind errors and
 *       {@link dev.muster.core.scheduler.Victims} maps (as {@code MetaVictims}) → bytes.</li>
 *   <li>{@link dev.muster.server.http.wire.WireFormatException}: the only exception bad input produces;
 *       its message names the problem and the JSON path.</li>
 * </ul>
 *
 * <p>Decoding streams over the request {@code byte[]} with jackson-core's {@code JsonParser} and skips
 * everything it does not need (volumes, managedFields, tolerations, status, labels, ...) token by token,
 * never building trees. For {@code nodeCacheCapable: false} requests, node objects are kept as byte
 * ranges of the body ({@link dev.muster.server.http.wire.RawNodeList}) so the filter answer can copy the
 * passing ones back verbatim.
 *
 * <p>Everything here is stateless or immutable and thread-safe, except the package-private
 * {@code JsonInput} and {@code JsonOutput}, which are confined to the call that creates them.
 */
package dev.muster.server.http.wire;
