package dev.muster.core.ledger;

import dev.muster.core.model.TopologyRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The configured topology levels: node label keys ordered from the widest level to the tightest, for example
 * {@code topology.kubernetes.io/zone}, a block label, a rack label, {@code kubernetes.io/hostname}. Immutable and
 * thread-safe.
 *
 * <p><b>Domains.</b> A node's domain at level {@code i} is the path of its label values from level 0 down to level
 * {@code i} ({@code zone-a/block-3/rack-7}), so two racks both labelled {@code rack-7} in different blocks are two
 * domains. A node without the label of level {@code i} belongs to no domain of that level (a gang that requires the
 * level never lands there); a missing label of a <em>wider</em> level is an empty path element, so a cluster that
 * labels only racks still has rack domains.
 *
 * <p><b>Tiers.</b> Volcano counts tiers from the tightest level: tier 1 is the last configured level, tier 2 the one
 * above, and so on. A last level of {@code kubernetes.io/hostname} is not a tier: Volcano's tier-1 HyperNodes group
 * nodes (a node is never a tier), so with {@code zone > block > rack > hostname} tier 1 is the rack — and Volcano's
 * default {@code highestTierAllowed: 1} means one rack, not one node.
 */
public final class TopologyLevels {
    public static final TopologyLevels NONE = new TopologyLevels(List.of());
    /** The node-name label: as the last level it is one node per domain, and no Volcano tier. */
    public static final String HOSTNAME = "kubernetes.io/hostname";

    private final List<String> keys;

    private TopologyLevels(List<String> keys) {
        this.keys = List.copyOf(keys);
    }

    /**
     * @param keys label keys, widest level first
     * @throws IllegalArgumentException naming the problem when a key is empty or repeated
     */
    public static TopologyLevels of(List<String> keys) {
        Set<String> seen = new HashSet<>();
        List<String> clean = new ArrayList<>(keys.size());
        for (String k : keys) {
            String key = k == null ? "" : k.strip();
            if (key.isEmpty()) {
                throw new IllegalArgumentException("topology levels " + keys + ": a level's label key is empty");
            }
            if (!seen.add(key)) {
                throw new IllegalArgumentException("topology levels " + keys + ": label key " + key + " is listed twice");
            }
            clean.add(key);
        }
        return clean.isEmpty() ? NONE : new TopologyLevels(clean);
    }

    /** Label keys, widest level first. */
    public List<String> keys() {
        return keys;
    }

    public int size() {
        return keys.size();
    }

    public boolean isEmpty() {
        return keys.isEmpty();
    }

    public String key(int level) {
        return keys.get(level);
    }

    /** The label key's level index, or -1 when it is not a configured level. */
    public int levelOfKey(String key) {
        return keys.indexOf(key);
    }

    /**
     * The level a request names: its key's index, or for a Volcano tier the level {@code tier - 1} above the tightest
     * (a trailing hostname level not counted). Returns -1 when the key is not configured, and {@code Integer.MIN_VALUE}
     * when the tier is above the widest level (Volcano: no constraint).
     */
    public int levelOf(TopologyRequest request) {
        if (!request.key().isEmpty()) {
            return levelOfKey(request.key());
        }
        int tiers = keys.size() - (!keys.isEmpty() && keys.getLast().equals(HOSTNAME) ? 1 : 0);
        int level = tiers - request.highestTier();
        return level < 0 ? Integer.MIN_VALUE : level;
    }

    /** Describes the level a request names, for reasons: its key, or "tier N (key)". */
    public String describe(TopologyRequest request) {
        if (!request.key().isEmpty()) {
            return request.key();
        }
        int level = levelOf(request);
        return "tier " + request.highestTier() + (level >= 0 ? " (" + keys.get(level) + ")" : "");
    }

    /** The node's domain at {@code level} (the value path down to it), or null when it lacks that level's label. */
    public String domainOf(Map<String, String> labels, int level) {
        String own = labels.get(keys.get(level));
        if (own == null) {
            return null;
        }
        if (level == 0) {
            return own;
        }
        StringBuilder path = new StringBuilder();
        for (int i = 0; i < level; i++) {
            path.append(labels.getOrDefault(keys.get(i), "")).append('/');
        }
        return path.append(own).toString();
    }

    /** Keeps only the labels of the configured levels (what a {@link dev.muster.core.model.Node} should carry). */
    public Map<String, String> select(Map<String, String> allLabels) {
        if (allLabels == null || allLabels.isEmpty() || keys.isEmpty()) {
            return Map.of();
        }
        Map<String, String> out = new java.util.HashMap<>();
        for (String k : keys) {
            String v = allLabels.get(k);
            if (v != null) {
                out.put(k, v);
            }
        }
        return Map.copyOf(out);
    }

    @Override
    public String toString() {
        return String.join(" > ", keys);
    }
}
