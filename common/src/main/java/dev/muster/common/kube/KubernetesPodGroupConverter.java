package dev.muster.common.kube;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import java.util.Map;

/**
 * Kubernetes' own PodGroup ({@code scheduling.k8s.io/v1alpha2}, {@code v1beta1}) → core {@link PodGroupSpec}:
 * <ul>
 *   <li>{@code spec.schedulingPolicy.gang.minCount} → minMember; {@code spec.schedulingPolicy.basic} (no gang) →
 *       minMember 1: each member is placed on its own, as a single pod would be, but still within its queue;</li>
 *   <li>{@code spec.schedulingConstraints.topologyConstraints[].topologyKey} → a REQUIRED topology request by label
 *       key (the API allows one constraint);</li>
 *   <li>the queue: label, else annotation {@value #QUEUE_KEY} on the PodGroup, else {@code default};</li>
 *   <li>{@code spec.priorityClassName}, when present, is carried (the core orders by the members' pod priority);</li>
 *   <li>{@code spec.podGroupTemplateRef} (the Workload template it came from) is checked for shape only: the
 *       PodGroup carries its own copy of the template's policy, which is what Muster schedules by;</li>
 *   <li>the reservation deadline: the annotation {@code muster.dev/gang-deadline}, as for Volcano.</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class KubernetesPodGroupConverter {
    /** Names a PodGroup's Muster Queue (label or annotation) for the APIs that have no queue field. */
    public static final String QUEUE_KEY = "muster.dev/queue";

    private KubernetesPodGroupConverter() {}

    /** @throws ConversionException naming the PodGroup and the field */
    public static PodGroupSpec toCore(RawCustomObject podGroup) {
        GangKey key = PodGroupConverter.keyOf(podGroup);
        String where = "podgroup " + key + " (" + GangApiGroups.KUBERNETES_GROUP + ")";
        CrdFields spec = new CrdFields(where + " spec", podGroup.getSpec());
        JsonObject policy = spec.object("schedulingPolicy");
        CrdFields p = new CrdFields(where + " spec.schedulingPolicy", policy);
        JsonObject gang = p.object("gang");
        boolean basic = p.object("basic") != null;
        if ((gang == null) == !basic) {
            throw new ConversionException(where + " spec.schedulingPolicy: exactly one of basic or gang must be set");
        }
        int minMember = 1;
        if (gang != null) {
            Integer minCount = new CrdFields(where + " spec.schedulingPolicy.gang", gang).integer("minCount");
            if (minCount == null || minCount < 1) {
                throw new ConversionException(where + " spec.schedulingPolicy.gang: minCount must be a positive number, got " + minCount);
            }
            minMember = minCount;
        }
        templateRef(where, spec);
        return new PodGroupSpec(key, minMember, Map.of(), Resources.ZERO, queueOf(podGroup), spec.string("priorityClassName"),
                PodGroupConverter.deadlineOf(where, podGroup.getMetadata()), GangApi.KUBERNETES, topologyOf(where, spec));
    }

    /** The queue a PodGroup of an API without a queue field names: label, else annotation {@value #QUEUE_KEY}, else "". */
    static String queueOf(RawCustomObject podGroup) {
        var meta = podGroup.getMetadata();
        String q = meta.getLabels() == null ? null : meta.getLabels().get(QUEUE_KEY);
        if (q == null || q.isEmpty()) {
            q = meta.getAnnotations() == null ? null : meta.getAnnotations().get(QUEUE_KEY);
        }
        return q == null ? "" : q;
    }

    private static TopologyRequest topologyOf(String where, CrdFields spec) {
        JsonObject constraints = spec.object("schedulingConstraints");
        JsonElement list = new CrdFields(where + " spec.schedulingConstraints", constraints).raw("topologyConstraints");
        if (list == null) {
            return null;
        }
        if (!(list instanceof JsonArray array)) {
            throw new ConversionException(where + " spec.schedulingConstraints.topologyConstraints: expected a list, got "
                    + ResourceLists.abbreviate(list.toString()));
        }
        if (array.isEmpty()) {
            return null;
        }
        if (array.size() > 1) {
            throw new ConversionException(where + " spec.schedulingConstraints.topologyConstraints: at most one constraint, got " + array.size());
        }
        if (!array.get(0).isJsonObject()) {
            throw new ConversionException(where + " spec.schedulingConstraints.topologyConstraints[0]: expected an object");
        }
        String key = new CrdFields(where + " spec.schedulingConstraints.topologyConstraints[0]", array.get(0).getAsJsonObject())
                .string("topologyKey");
        if (key == null || key.isEmpty()) {
            throw new ConversionException(where + " spec.schedulingConstraints.topologyConstraints[0]: topologyKey is required");
        }
        return TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, key);
    }

    private static void templateRef(String where, CrdFields spec) {
        JsonObject ref = spec.object("podGroupTemplateRef");
        if (ref == null) {
            return;
        }
        JsonObject workload = new CrdFields(where + " spec.podGroupTemplateRef", ref).object("workload");
        if (workload != null) {
            CrdFields w = new CrdFields(where + " spec.podGroupTemplateRef.workload", workload);
            w.string("workloadName");
            w.string("podGroupTemplateName");
        }
    }
}
