package dev.muster.common.kube;

import dev.muster.common.config.Durations;
import dev.muster.core.model.GangApi;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangMembership;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.TopologyRequest;
import dev.muster.core.resources.Resources;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link VolcanoPodGroup} → core {@link PodGroupSpec}: {@code spec.minMember}, {@code spec.minTaskMember},
 * {@code spec.minResources}, {@code spec.queue} (default {@code default}), {@code spec.priorityClassName}, and the
 * reservation deadline from the annotation {@link GangMembership#DEADLINE_ANNOTATION}, and a topology constraint from
 * the annotation {@link GangMembership#TOPOLOGY_ANNOTATION} or else Volcano's {@code spec.networkTopology}
 * ({@code mode: hard|soft} → required|preferred, default hard; {@code highestTierAllowed} → tier, default 1;
 * {@code highestTierName} → a level named by its label key).
 *
 * <p>A malformed topology annotation or {@code networkTopology} fails the conversion like a malformed spec field:
 * silently dropping a <em>required</em> placement rule would place the gang where its owner said it must not go.
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
        TopologyRequest topology = topologyAnnotation(where, podGroup.getMetadata());
        if (topology == null) {
            topology = networkTopology(where, spec.object("networkTopology"));
        }
        return new PodGroupSpec(key, minMember == null ? 0 : minMember, minTaskMember, minResources,
                spec.string("queue"), spec.string("priorityClassName"), deadlineOf(where, podGroup.getMetadata()), GangApi.VOLCANO, topology);
    }

    /**
     * The {@link GangMembership#TOPOLOGY_ANNOTATION} of a PodGroup (any gang API), or null when absent.
     *
     * @throws ConversionException naming the PodGroup, the annotation and what is wrong with it
     */
    public static TopologyRequest topologyAnnotation(String where, V1ObjectMeta meta) {
        Map<String, String> annotations = meta == null ? null : meta.getAnnotations();
        String text = annotations == null ? null : annotations.get(GangMembership.TOPOLOGY_ANNOTATION);
        if (text == null) {
            return null;
        }
        String what = where + " annotation " + GangMembership.TOPOLOGY_ANNOTATION + " \"" + text + "\"";
        String value = text.strip();
        TopologyRequest.Mode mode = TopologyRequest.Mode.REQUIRED;
        int colon = value.indexOf(':');
        if (colon >= 0) {
            String prefix = value.substring(0, colon).strip();
            mode = switch (prefix) {
                case "required" -> TopologyRequest.Mode.REQUIRED;
                case "preferred" -> TopologyRequest.Mode.PREFERRED;
                default -> throw new ConversionException(what + ": expected required:<label key>, preferred:<label key> or <label key>; "
                        + "\"" + prefix + "\" is neither required nor preferred");
            };
            value = value.substring(colon + 1).strip();
        }
        if (!LABEL_KEY.matcher(value).matches()) {
            throw new ConversionException(what + ": \"" + value + "\" is not a node label key"
                    + (value.isEmpty() ? " (it is empty)" : ""));
        }
        return TopologyRequest.byKey(mode, value);
    }

    private static final java.util.regex.Pattern LABEL_KEY =
            java.util.regex.Pattern.compile("([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

    /** Volcano's {@code spec.networkTopology}, or null when absent. */
    private static TopologyRequest networkTopology(String where, com.google.gson.JsonObject raw) {
        if (raw == null) {
            return null;
        }
        CrdFields nt = new CrdFields(where + " spec.networkTopology", raw);
        String modeText = nt.string("mode");
        TopologyRequest.Mode mode = switch (modeText == null || modeText.isEmpty() ? "hard" : modeText) {
            case "hard" -> TopologyRequest.Mode.REQUIRED;
            case "soft" -> TopologyRequest.Mode.PREFERRED;
            default -> throw new ConversionException(where + " spec.networkTopology: mode must be hard or soft, got \"" + modeText + "\"");
        };
        Integer tier = nt.integer("highestTierAllowed");
        String tierName = nt.string("highestTierName");
        if (tier != null && tierName != null && !tierName.isEmpty()) {
            throw new ConversionException(where + " spec.networkTopology: highestTierAllowed and highestTierName cannot both be set");
        }
        if (tierName != null && !tierName.isEmpty()) {
            return TopologyRequest.byKey(mode, tierName);
        }
        if (tier != null && tier < 1) {
            throw new ConversionException(where + " spec.networkTopology: highestTierAllowed must be at least 1, got " + tier);
        }
        return TopologyRequest.byTier(mode, tier == null ? 1 : tier);
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
