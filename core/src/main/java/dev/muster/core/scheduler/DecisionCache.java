package dev.muster.core.scheduler;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Filter decisions kept for the prioritize call that follows with the byte-identical body, keyed by pod
 * UID + resourceVersion; bounded (least recently used out) and expiring. Not thread-safe: confined to
 * {@link GangScheduler}'s lock.
 */
final class DecisionCache {
    private record Kept(List<NodeScore> scores, long expiresNanos) {}

    private final int capacity;
    private final long ttlNanos;
    private final LinkedHashMap<String, Kept> entries;

    DecisionCache(int capacity, long ttlNanos) {
        this.capacity = capacity;
        this.ttlNanos = ttlNanos;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Kept> eldest) {
                return size() > DecisionCache.this.capacity;
            }
        };
    }

    static String key(String uid, String resourceVersion) {
        return uid + '@' + resourceVersion;
    }

    void put(String key, List<NodeScore> scores, long now) {
        if (capacity > 0) {
            entries.put(key, new Kept(java.util.Collections.unmodifiableList(scores), now + ttlNanos)); // the filter hands them over
        }
    }

    /** The kept scores, or null when absent or expired. */
    List<NodeScore> get(String key, long now) {
        Kept e = entries.get(key);
        if (e == null) {
            return null;
        }
        if (now - e.expiresNanos > 0) {
            entries.remove(key);
            return null;
        }
        return e.scores();
    }

    int size() {
        return entries.size();
    }
}
