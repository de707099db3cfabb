package dev.muster.common.kube;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import dev.muster.core.model.DisruptionMode;
import dev.muster.core.model.PreemptionPolicy;
import dev.muster.core.model.TopologyRequest;

/**
 * Reads of the fields every version of Kubernetes' PodGroup (and of a Workload's PodGroup template) spells the same way
 * — {@code schedulingPolicy}, {@code schedulingConstraints.topology[].key}, {@code priorityClassName}, {@code priority},
 * {@code resourceClaims} — for {@link KubeV1alpha2} and {@link KubeV1beta1}. Every error names the object and the field.
 * Stateless.
 */
final class KubeGroupFields {
    /** At most this many {@code resourceClaims} per PodGroup or template (the API's limit). */
    static final int MAX_RESOURCE_CLAIMS = 4;

    private KubeGroupFields() {}

    /**
     * The scheduling fields a PodGroup spec or a Workload template sets; null (false) for what it leaves unset.
     *
     * @param minMember      {@code gang.minCount}, or 1 for {@code basic}
     * @param constraintsSet a non-empty topology constraint list is present
     */
    record Parts(Integer minMember, TopologyRequest topology, boolean constraintsSet, String priorityClassName, Integer priority,
                 PreemptionPolicy preemptionPolicy, DisruptionMode disruption) {}

    /** {@code schedulingPolicy}: minCount for a gang, 1 for basic, null when absent. */
    static Integer minMember(String where, CrdFields o) {
        JsonObject policy = o.object("schedulingPolicy");
        if (policy == null || policy.isEmpty()) {
            return null;
        }
        CrdFields p = new CrdFields(where + ".schedulingPolicy", policy);
        JsonObject gang = p.object("gang");
        boolean basic = p.object("basic") != null;
        if ((gang == null) == !basic) {
            throw new ConversionException(where + ".schedulingPolicy: exactly one of basic or gang must be set");
        }
        if (gang == null) {
            return 1;
        }
        Integer minCount = new CrdFields(where + ".schedulingPolicy.gang", gang).integer("minCount");
        if (minCount == null || minCount < 1) {
            throw new ConversionException(where + ".schedulingPolicy.gang: minCount must be a positive number, got " + minCount);
        }
        return minCount;
    }

    /** {@code priorityClassName}, null when absent or empty. */
    static String priorityClassName(CrdFields o) {
        String name = o.string("priorityClassName");
        return name == null || name.isEmpty() ? null : name;
    }

    /** {@code priority}, null when absent. */
    static Integer priority(CrdFields o) {
        return o.integer("priority");
    }

    /**
     * {@code schedulingConstraints.<list>[].<keyField>} → a REQUIRED topology request by label key (the API allows one
     * constraint), or null when absent or empty.
     */
    static TopologyRequest topology(String where, CrdFields o, String list, String keyField) {
        CrdFields constraints = new CrdFields(where + ".schedulingConstraints", o.object("schedulingConstraints"));
        JsonElement raw = constraints.raw(list);
        if (raw == null) {
            return null;
        }
        String at = where + ".schedulingConstraints." + list;
        if (!(raw instanceof JsonArray array)) {
            throw new ConversionException(at + ": expected a list, got " + ResourceLists.abbreviate(raw.toString()));
        }
        if (array.isEmpty()) {
            return null;
        }
        if (array.size() > 1) {
            throw new ConversionException(at + ": at most one constraint, got " + array.size());
        }
        if (!array.get(0).isJsonObject()) {
            throw new ConversionException(at + "[0]: expected an object");
        }
        String key = new CrdFields(at + "[0]", array.get(0).getAsJsonObject()).string(keyField);
        if (key == null || key.isEmpty()) {
            throw new ConversionException(at + "[0]: " + keyField + " is required");
        }
        return TopologyRequest.byKey(TopologyRequest.Mode.REQUIRED, key);
    }

    /**
     * Checks {@code resourceClaims}: at most {@value #MAX_RESOURCE_CLAIMS}, each with a {@code name} and exactly one of
     * {@code resourceClaimName} or {@code resourceClaimTemplateName}. Muster plans no devices: the claims are allocated by
     * kube-scheduler's DynamicResources plugin, which runs in Muster's profile before the extender sees the nodes.
     */
    static void checkResourceClaims(String where, CrdFields o) {
        JsonElement raw = o.raw("resourceClaims");
        if (raw == null) {
            return;
        }
        String at = where + ".resourceClaims";
        if (!(raw instanceof JsonArray array)) {
            throw new ConversionException(at + ": expected a list, got " + ResourceLists.abbreviate(raw.toString()));
        }
        if (array.size() > MAX_RESOURCE_CLAIMS) {
            throw new ConversionException(at + ": at most " + MAX_RESOURCE_CLAIMS + " claims, got " + array.size());
        }
        for (int i = 0; i < array.size(); i++) {
            if (!array.get(i).isJsonObject()) {
                throw new ConversionException(at + "[" + i + "]: expected an object");
            }
            CrdFields claim = new CrdFields(at + "[" + i + "]", array.get(i).getAsJsonObject());
            String name = claim.string("name");
            if (name == null || name.isEmpty()) {
                throw new ConversionException(at + "[" + i + "]: name is required");
            }
            boolean byName = claim.string("resourceClaimName") != null;
            boolean byTemplate = claim.string("resourceClaimTemplateName") != null;
            if (byName == byTemplate) {
                throw new ConversionException(at + "[" + i + "] (" + name + "): exactly one of resourceClaimName or resourceClaimTemplateName must be set");
            }
        }
    }
}
