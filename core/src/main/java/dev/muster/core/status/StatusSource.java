package dev.muster.core.status;

/** Where the writer reads what an object's status should be now (level-based: the latest state). */
public interface StatusSource {
    /** The desired status of {@code key}, or null when the object is unknown or deleted. */
    DesiredStatus desired(StatusKey key);
}
