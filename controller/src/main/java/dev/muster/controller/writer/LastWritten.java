package dev.muster.controller.writer;

import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.StatusKey;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the API holds for each object, as far as the writer knows: the status it last wrote successfully, or
 * the status observed on the object. "Desired equals this" means no write.
 *
 * <p>Where observations count depends on the role:
 * <ul>
 *   <li><b>standby</b>: observations replace what is known — a mirror of the API, kept warm so that on
 *       takeover the new leader skips every object whose status is already right instead of rewriting all of
 *       them;</li>
 *   <li><b>leader</b>: observations only fill in objects not known yet (the first list after a start); the
 *       leader's own successful writes are authoritative, so an informer echo of an older write does not
 *       trigger a rewrite. (Muster is the sole writer; a foreign write is corrected at the object's next
 *       change.)</li>
 * </ul>
 *
 * <p>This class is thread-safe: the map is concurrent and the role is volatile. Statuses are immutable.
 */
public final class LastWritten {
    private final ConcurrentHashMap<StatusKey, DesiredStatus> known = new ConcurrentHashMap<>();
    private volatile boolean leading;

    public void setLeading(boolean leading) {
        this.leading = leading;
    }

    /** The object's status as the informer shows it ({@code null}: it has none). */
    public void observed(StatusKey key, DesiredStatus status) {
        if (leading) {
            if (status != null) {
                known.putIfAbsent(key, status);
            }
        } else if (status == null) {
            known.remove(key);
        } else {
            known.put(key, status);
        }
    }

    /** A write of {@code status} succeeded. */
    public void written(StatusKey key, DesiredStatus status) {
        known.put(key, status);
    }

    /** What the API holds for {@code key}, or null when unknown. */
    public DesiredStatus get(StatusKey key) {
        return known.get(key);
    }

    /** The object is gone. */
    public void forget(StatusKey key) {
        known.remove(key);
    }

    public int size() {
        return known.size();
    }
}
