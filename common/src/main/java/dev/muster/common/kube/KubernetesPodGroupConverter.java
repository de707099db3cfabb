package dev.muster.common.kube;

import com.google.gson.JsonObject;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PreemptionTerms;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import java.util.Map;
import java.util.Objects;

/**
 * Kubernetes' own PodGroup ({@code scheduling.k8s.io}) → core {@link PodGroupSpec}, whichever version is served: each
 * version's fields are read by its own reader ({@link KubeV1alpha2} for 1.36, {@link KubeV1beta1} from 1.37, chosen by
 * the object's {@code apiVersion}, {@link KubePodGroupVersion}); what follows is the same for both:
 * <ul>
 *   <li>{@code schedulingPolicy.gang.minCount} → minMember; {@code schedulingPolicy.basic} (no gang) → minMember 1: each
 *       member is placed on its own, as a single pod would be, but still within its queue;</li>
 *   <li>{@code schedulingConstraints.topology[].key} → a REQUIRED topology request by label key;</li>
 *   <li>the queue: label, else annotation {@value #QUEUE_KEY} on the PodGroup, else {@code default};</li>
 *   <li>{@code priorityClassName} is carried (the core orders waiting gangs by the members' pod priority);
 *       {@code priority}, {@code preemptionPolicy} and {@code disruptionMode} become the gang's {@link PreemptionTerms}
 *       (a gang whose mode is {@code all} is a preemption victim only as a whole);</li>
 *   <li>the Workload template reference ({@code spec.podGroupTemplateRef.workload} in v1alpha2, {@code spec.workloadRef}
 *       in v1beta1) → the {@code Workload} (same namespace) template of that name ({@link TemplateLookup}). The API copies
 *       the template's fields into the PodGroup when it is created, so the PodGroup's own fields win; the template fills
 *       in what the PodGroup leaves unset. A reference Muster cannot resolve (no such Workload or template, or Workloads
 *       not watched) makes the spec {@linkplain PodGroupSpec#unresolved() unresolved}: the gang is not scheduled, and
 *       says why, until the Workload appears. So does a field Muster does not schedule
 *       ({@link KubePodGroupVersion#unsupported}: a child of a CompositePodGroup);</li>
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
        KubePodGroupVersion version = KubePodGroupVersion.of(where, podGroup.getApiVersion());
        CrdFields spec = new CrdFields(where + " spec", podGroup.getSpec());
        KubeGroupFields.Parts own = version.parts(where + " spec", podGroup.getSpec());
        KubeGroupFields.Parts template = null;
        String unresolved = version.unsupported(where, spec);
        TemplateRef ref = version.templateRef(where, spec);
        if (ref != null) {
            switch (templates.find(key.namespace(), ref.workload(), ref.template())) {
                case Template.Found f -> template = version.parts("workload " + key.namespace() + "/" + ref.workload()
                        + " podGroupTemplates[" + ref.template() + "]", f.template());
                case Template.Missing m -> unresolved = unresolved.isEmpty() ? version.templateRefField() + ": " + m.why() : unresolved;
            }
        }
        Integer minMember = pick(own.minMember(), template, KubeGroupFields.Parts::minMember);
        if (minMember == null) {
            if (unresolved.isEmpty()) {
                throw new ConversionException(where + " spec.schedulingPolicy: exactly one of basic or gang must be set"
                        + (ref == null ? "" : " (in the PodGroup or its Workload template)"));
            }
            minMember = 1; // not scheduled while unresolved
        }
        TopologyRequest topology = own.constraintsSet() || template == null ? own.topology() : template.topology();
        PreemptionTerms preemption = new PreemptionTerms(pick(own.priority(), template, KubeGroupFields.Parts::priority),
                pick(own.preemptionPolicy(), template, KubeGroupFields.Parts::preemptionPolicy),
                pick(own.disruption(), template, KubeGroupFields.Parts::disruption));
        return new PodGroupSpec(key, minMember, Map.of(), Resources.ZERO, queueOf(podGroup),
                pick(own.priorityClassName(), template, KubeGroupFields.Parts::priorityClassName),
                PodGroupConverter.deadlineOf(where, podGroup.getMetadata()), GangApi.KUBERNETES, topology, unresolved, preemption);
    }

    /** The PodGroup's own value, else the template's (null when neither sets it). */
    private static <T> T pick(T own, KubeGroupFields.Parts template, java.util.function.Function<KubeGroupFields.Parts, T> field) {
        return own != null || template == null ? own : field.apply(template);
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

    /** The Workload template a PodGroup names (its version's reference field), or null when it names none. */
    record TemplateRef(String workload, String template) {}

    /** The Workload a PodGroup refers to ({@code workloadName}), or null; never throws. */
    static String workloadNameOf(RawCustomObject podGroup) {
        try {
            TemplateRef ref = KubePodGroupVersion.of("", podGroup.getApiVersion()).templateRef("", new CrdFields("", podGroup.getSpec()));
            return ref == null ? null : ref.workload();
        } catch (ConversionException e) {
            return null;
        }
    }
}
