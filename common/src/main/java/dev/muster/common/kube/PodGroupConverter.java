package dev.muster.common.kube;

import dev.muster.common.config.Durations;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link VolcanoPodGroup} → core {@link PodGroupSpec}: {@code spec.minMember}, {@code spec.minTaskMember},
 * {@code spec.minResources}, {@code spec.queue} (default {@code default}), {@code spec.priorityClassName}, and the
 * reservation deadline from the annotation {@link GangMembership#DEADLINE_ANNOTATION}.
 *
 * <p>A malformed spec field fails the conversion ({@link ConversionException}); a malformed or non-positive deadline
 * annotation only logs a warning and falls back to the configured default, so a typo in an optional override never
 * hides the gang from the scheduler. Stateless and thread-safe.
 */
public final class PodGroupConverter {
    private static final Logger log = LoggerFactory.getLogger(PodGroupConverter.class);

    private PodGroupConverter() {}

    /** @throws ConversionException naming the PodGroup and the field */
    public static PodGroupSpec toCore(VolcanoPodGroup podGroup) {
        GangKey key = keyOf(podGroup);
        String where = "podgroup " + key;
        CrdFields spec = new CrdFields(where + " spec", podGroup.getSpec());
        Integer minMember = spec.integer("minMember");
        if (minMember != null && minMember < 0) {
            throw new ConversionException(where + " spec: minMember must not be negative, got " + minMember);
        }
        Map<String, Integer> minTaskMember = spec.integerMap("minTaskMember");
        minTaskMember.forEach((task, n) -> {
            if (n < 0) {
                throw new ConversionException(where + " spec: minTaskMember." + task + " must not be negative, got " + n);
            }
        });
        Resources minResources = ResourceLists.fromJson(where + " spec.minResources", spec.raw("minResources"));
        return new PodGroupSpec(key, minMember == null ? 0 : minMember, minTaskMember, minResources,
                spec.string("queue"), spec.string("priorityClassName"), deadlineOf(where, podGroup.getMetadata()));
    }

    /** @throws ConversionException when metadata.name is missing */
    public static GangKey keyOf(VolcanoPodGroup podGroup) {
        return keyOf((RawCustomObject) podGroup);
    }

    /** The gang key of any gang API's PodGroup. @throws ConversionException when metadata.name is missing */
    public static GangKey keyOf(RawCustomObject podGroup) {
        V1ObjectMeta meta = podGroup.getMetadata();
        if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
            throw new ConversionException("podgroup without metadata.name");
        }
        String namespace = meta.getNamespace() == null || meta.getNamespace().isEmpty() ? "default" : meta.getNamespace();
        return new GangKey(namespace, meta.getName());
    }

    /** The deadline annotation's value, or null when absent or not a positive duration (logged). */
    static Duration deadlineOf(String where, V1ObjectMeta meta) {
        Map<String, String> annotations = meta.getAnnotations();
        String text = annotations == null ? null : annotations.get(GangMembership.DEADLINE_ANNOTATION);
        if (text == null) {
            return null;
        }
        try {
            Duration d = Durations.parse(where + " annotation " + GangMembership.DEADLINE_ANNOTATION, text);
            if (d.isZero() || d.isNegative()) {
                log.warn("{} annotation {}: \"{}\" is not a positive duration; using the default deadline", where,
                        GangMembership.DEADLINE_ANNOTATION, text);
                return null;
            }
            return d;
        } catch (IllegalArgumentException e) {
            log.warn("{}; using the default deadline", e.getMessage());
            return null;
        }
    }
}
