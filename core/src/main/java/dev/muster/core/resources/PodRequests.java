package dev.muster.core.resources;

import java.util.List;

/**
 * The effective resource request of a pod, computed exactly as kube-scheduler does
 * ({@code k8s.io/component-helpers/resource.PodRequests}):
 *
 * <ol>
 *   <li>sum the requests of the app containers;</li>
 *   <li>walk the init containers in order: a restartable one (a sidecar, {@code restartPolicy: Always})
 *       is added to the sum and to the running sidecar total; a regular one needs its own request plus
 *       the sidecars started before it, and the pod needs at least the largest such step;</li>
 *   <li>take the element-wise maximum of the sum and the largest init step;</li>
 *   <li>if pod-level {@code spec.resources.requests} are set, they replace the aggregate for the
 *       resources they name (PodLevelResources);</li>
 *   <li>add {@code spec.overhead};</li>
 *   <li>every pod counts 1 toward {@code pods}.</li>
 * </ol>
 */
public final class PodRequests {
    private PodRequests() {}

    /** One container's requests; {@code restartable} marks a sidecar init container. */
    public record Container(Resources requests, boolean restartable) {
        public static Container of(Resources requests) {
            return new Container(requests, false);
        }
    }

    public static Resources effective(List<Container> containers, List<Container> initContainers,
                                      Resources podLevelRequests, Resources overhead) {
        Resources sum = Resources.ZERO;
        for (Container c : containers) {
            sum = sum.plus(c.requests());
        }
        Resources sidecars = Resources.ZERO;
        Resources largestInitStep = Resources.ZERO;
        for (Container c : initContainers) {
            Resources step;
            if (c.restartable()) {
                sum = sum.plus(c.requests());
                sidecars = sidecars.plus(c.requests());
                step = sidecars;
            } else {
                step = c.requests().plus(sidecars);
            }
            largestInitStep = largestInitStep.max(step);
        }
        Resources request = sum.max(largestInitStep);
        if (podLevelRequests != null && !podLevelRequests.isZero()) {
            request = request.overriddenBy(podLevelRequests);
        }
        if (overhead != null) {
            request = request.plus(overhead);
        }
        return request.with(ResourceNames.PODS_INDEX, 1);
    }
}
