package dev.muster.core.ledger;

/**
 * One topology domain a gang is confined to: {@code level} (an index into {@link TopologyLevels}) and the domain's
 * value path at that level ({@link TopologyLevels#domainOf}). {@code key} is that level's label key, for reasons.
 * Immutable.
 */
public record Domain(int level, String key, String path) {
    /** Whether the node with {@code labels} lies inside this domain. */
    public boolean contains(TopologyLevels levels, java.util.Map<String, String> labels) {
        return level < levels.size() && path.equals(levels.domainOf(labels, level));
    }

    @Override
    public String toString() {
        return key + "=" + path;
    }
}
