package dev.muster.core.model;

import java.util.Objects;

/**
 * A gang's topology constraint, as translated from whichever API asked for it: keep all members inside one domain
 * of a level ({@link Mode#REQUIRED}), or in as few domains as possible, tightest level first ({@link Mode#PREFERRED}).
 *
 * <p>The level is named either by a node label key ({@code key}, e.g. {@code topology.kubernetes.io/zone}: Muster's
 * annotation and Kubernetes' {@code schedulingConstraints.topology[].key}) or by a Volcano tier ({@code highestTier},
 * counted from 1 = the tightest configured level: Volcano's {@code networkTopology.highestTierAllowed}); exactly one
 * of the two is set. The core resolves either against the configured topology levels.
 */
public record TopologyRequest(Mode mode, String key, int highestTier) {
    public enum Mode { REQUIRED, PREFERRED }

    public TopologyRequest {
        Objects.requireNonNull(mode, "mode");
        boolean hasKey = key != null && !key.isEmpty();
        if (hasKey == (highestTier > 0)) {
            throw new IllegalArgumentException("a topology request names a level by label key or by tier, exactly one; got key="
                    + key + " tier=" + highestTier);
        }
        key = hasKey ? key : "";
    }

    public static TopologyRequest byKey(Mode mode, String labelKey) {
        return new TopologyRequest(mode, labelKey, 0);
    }

    public static TopologyRequest byTier(Mode mode, int highestTier) {
        return new TopologyRequest(mode, "", highestTier);
    }
}
