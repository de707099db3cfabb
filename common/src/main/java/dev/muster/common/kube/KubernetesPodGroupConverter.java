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
import java.util.Objects;

/**
 * Kubernetes' own PodGroup ({@code scheduling.k8s.io/v1alpha2}, {@code v1beta1}) → core {@link PodGroupSpec}:
 * <ul>
 *   <li>{@code spec.schedulingPolicy.gang.minCount} → minMember; {@code spec.schedulingPolicy.basic} (no gang) →
 *       minMember 1: each member is placed on its own, as a single pod would be, but still within its queue;</li>
 *   <li>{@code spec.schedulingConstraints.topology[].key} (the 1.36 API; the development tree's
 *       {@code topologyConstraints[].topologyKey} is read too) → a REQUIRED topology request by label key (the API allows
 *       one constraint);</li>
 *   <li>the queue: label, else annotation {@value #QUEUE_KEY} on the PodGroup, else {@code default};</li>
 *   <li>{@code spec.priorityClassName}, when present, is carried (the core orders by the members' pod priority);</li>
 *   <li>{@code spec.podGroupTemplateRef.workload} → the {@code Workload} (same namespace) template of that name
 *       ({@link TemplateLookup}). The API copies the template's fields into the PodGroup when it is created and makes them
 *       immutable, so the PodGroup's own fields win; the template fills in what the PodGroup leaves unset:
 *       {@code schedulingPolicy}, {@code schedulingConstraints}, {@code priorityClassName}. A reference Muster cannot
 *       resolve (no such Workload or template, or Workloads not watched) makes the spec {@linkplain PodGroupSpec#unresolved()
 *       unresolved}: the gang is not scheduled, and says why, until the Workload appears;</li>
 *   <li>the reservation deadline: the annotation {@code muster.dev/gang-deadline}, as for Volcano.</li>
 * </ul>
 * Stateless and thread-safe.
 */
public final class KubernetesPodGroupConverter {
    /** Names a PodGroup's Muster Queue (label or annotation) for the APIs that have no queue field. */
    public static final String QUEUE_KEY = "muster.dev/queue";

    /** Finds the template a PodGroup refers to. Implementations must be thread-safe. */
    @FunctionalInterface
    public interface TemplateLookup {
        /** The template {@code template} of Workload {@code namespace/workload}. */
        Template find(String namespace, String workload, String template);

        /** For callers that watch no Workloads: every reference is unresolved. */
        TemplateLookup NOT_WATCHED = (ns, w, t) -> new Template.Missing("Workload " + ns + "/" + w
                + " cannot be read: scheduling.k8s.io workloads are not watched");
    }

    /** A lookup's answer. */
    public sealed interface Template {
        /** The raw {@code podGroupTemplates[]} entry. */
        record Found(JsonObject template) implements Template {
            public Found {
                Objects.requireNonNull(template, "template");
            }
        }

        /** Why it cannot be found, for the gang's reason. */
        record Missing(String why) implements Template {
            public Missing {
                Objects.requireNonNull(why, "why");
            }
        }
    }

    private KubernetesPodGroupConverter() {}

    /** Without Workloads: a PodGroup with a template reference comes out unresolved. @throws ConversionException naming the field */
    public static PodGroupSpec toCore(RawCustomObject podGroup) {
        return toCore(podGroup, TemplateLookup.NOT_WATCHED);
    }

    /** @throws ConversionException naming the PodGroup (or its Workload template) and the field */
    public static PodGroupSpec toCore(RawCustomObject podGroup, TemplateLookup templates) {
        GangKey key = PodGroupConverter.keyOf(podGroup);
        String where = "podgroup " + key + " (" + GangApiGroups.KUBERNETES_GROUP + ")";
        CrdFields spec = new CrdFields(where + " spec", podGroup.getSpec());
        Parts own = parts(where + " spec", podGroup.getSpec());
        Parts template = null;
        String unresolved = "";
        TemplateRef ref = templateRef(where, spec);
        if (ref != null) {
            switch (templates.find(key.namespace(), ref.workload(), ref.template())) {
                case Template.Found f -> template = parts("workload " + key.namespace() + "/" + ref.workload() + " podGroupTemplates["
                        + ref.template() + "]", f.template());
                case Template.Missing m -> unresolved = "spec.podGroupTemplateRef: " + m.why();
            }
        }
        Integer minMember = own.minMember() != null ? own.minMember() : template == null ? null : template.minMember();
        if (minMember == null) {
            if (unresolved.isEmpty()) {
                throw new ConversionException(where + " spec.schedulingPolicy: exactly one of basic or gang must be set"
                        + (ref == null ? "" : " (in the PodGroup or its Workload template)"));
            }
            minMember = 1; // not scheduled while unresolved
        }
        TopologyRequest topology = own.constraintsSet() || template == null ? own.topology() : template.topology();
        String priorityClassName = own.priorityClassName() != null || template == null ? own.priorityClassName() : template.priorityClassName();
        return new PodGroupSpec(key, minMember, Map.of(), Resources.ZERO, queueOf(podGroup), priorityClassName,
                PodGroupConverter.deadlineOf(where, podGroup.getMetadata()), GangApi.KUBERNETES, topology, unresolved);
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

    /** {@code spec.podGroupTemplateRef.workload}, or null when the PodGroup names no template. */
    record TemplateRef(String workload, String template) {}

    /**
     * The scheduling fields a PodGroup spec or a Workload template sets; null (false) for what it leaves unset.
     *
     * @param constraintsSet a non-empty topology constraint list is present
     */
    private record Parts(Integer minMember, TopologyRequest topology, boolean constraintsSet, String priorityClassName) {}

    private static Parts parts(String where, JsonObject object) {
        CrdFields o = new CrdFields(where, object);
        Integer minMember = null;
        JsonObject policy = o.object("schedulingPolicy");
        if (policy != null && !policy.isEmpty()) {
            CrdFields p = new CrdFields(where + ".schedulingPolicy", policy);
            JsonObject gang = p.object("gang");
            boolean basic = p.object("basic") != null;
            if ((gang == null) == !basic) {
                throw new ConversionException(where + ".schedulingPolicy: exactly one of basic or gang must be set");
            }
            minMember = 1;
            if (gang != null) {
                Integer minCount = new CrdFields(where + ".schedulingPolicy.gang", gang).integer("minCount");
                if (minCount == null || minCount < 1) {
                    throw new ConversionException(where + ".schedulingPolicy.gang: minCount must be a positive number, got " + minCount);
                }
                minMember = minCount;
            }
        }
        TopologyRequest topology = topologyOf(where, o);
        String priorityClassName = o.string("priorityClassName");
        return new Parts(minMember, topology, topology != null, priorityClassName == null || priorityClassName.isEmpty() ? null : priorityClassName);
    }

    private static TopologyRequest topologyOf(String where, CrdFields o) {
        CrdFields constraints = new CrdFields(where + ".schedulingConstraints", o.object("schedulingConstraints"));
        String list = "topology";
        String keyField = "key";
        JsonElement raw = constraints.raw(list);
        if (raw == null) {
            list = "topologyConstraints";
            keyField = "topologyKey";
            raw = constraints.raw(list);
        }
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

    static TemplateRef templateRef(String where, CrdFields spec) {
        JsonObject ref = spec.object("podGroupTemplateRef");
        if (ref == null) {
            return null;
        }
        JsonObject workload = new CrdFields(where + " spec.podGroupTemplateRef", ref).object("workload");
        if (workload == null) {
            return null; // another kind of reference (none exists in 1.36): nothing Muster reads
        }
        CrdFields w = new CrdFields(where + " spec.podGroupTemplateRef.workload", workload);
        String name = w.string("workloadName");
        String template = w.string("podGroupTemplateName");
        if (name == null || name.isEmpty() || template == null || template.isEmpty()) {
            throw new ConversionException(where + " spec.podGroupTemplateRef.workload: workloadName and podGroupTemplateName are required");
        }
        return new TemplateRef(name, template);
    }

    /** The Workload a PodGroup refers to ({@code workloadName}), or null; never throws. */
    static String workloadNameOf(RawCustomObject podGroup) {
        try {
            TemplateRef ref = templateRef("", new CrdFields("", podGroup.getSpec()));
            return ref == null ? null : ref.workload();
        } catch (ConversionException e) {
            return null;
        }
    }
}
