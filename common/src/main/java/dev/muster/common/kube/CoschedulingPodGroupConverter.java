package dev.muster.common.kube;

import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.Map;

/**
 * scheduler-plugins' coscheduling PodGroup ({@code scheduling.x-k8s.io/v1alpha1}) → core {@link PodGroupSpec}:
 * {@code spec.minMember}; {@code spec.minResources} (must fit in the queue and the cluster's free capacity before any
 * member is planned, as Volcano's); {@code spec.scheduleTimeoutSeconds} → the gang's reservation deadline (else the
 * annotation {@code muster.dev/gang-deadline}, else the configured default); the queue from the label or annotation
 * {@value KubernetesPodGroupConverter#QUEUE_KEY}, else {@code default}. Stateless and thread-safe.
 */
public final class CoschedulingPodGroupConverter {
    private CoschedulingPodGroupConverter() {}

    /** @throws ConversionException naming the PodGroup and the field */
    public static PodGroupSpec toCore(RawCustomObject podGroup) {
        GangKey key = PodGroupConverter.keyOf(podGroup);
        String where = "podgroup " + key + " (" + GangApiGroups.SCHEDULER_PLUGINS_GROUP + ")";
        CrdFields spec = new CrdFields(where + " spec", podGroup.getSpec());
        Integer minMember = spec.integer("minMember");
        if (minMember != null && minMember < 0) {
            throw new ConversionException(where + " spec: minMember must not be negative, got " + minMember);
        }
        Resources minResources = ResourceLists.fromJson(where + " spec.minResources", spec.raw("minResources"));
        Integer timeout = spec.integer("scheduleTimeoutSeconds");
        Duration deadline;
        if (timeout != null) {
            if (timeout <= 0) {
                throw new ConversionException(where + " spec: scheduleTimeoutSeconds must be positive, got " + timeout);
            }
            deadline = Duration.ofSeconds(timeout);
        } else {
            deadline = PodGroupConverter.deadlineOf(where, podGroup.getMetadata());
        }
        return new PodGroupSpec(key, minMember == null ? 0 : minMember, Map.of(), minResources,
                KubernetesPodGroupConverter.queueOf(podGroup), "", deadline, GangApi.SCHEDULER_PLUGINS, null);
    }
}
