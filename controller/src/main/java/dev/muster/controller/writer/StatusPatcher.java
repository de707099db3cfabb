package dev.muster.controller.writer;

import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.StatusKey;

/**
 * Writes one object's status with one request (the port the writer talks to; {@link KubeStatusPatcher} is
 * the Kubernetes adapter, tests and the load driver use fakes). Called from one thread at a time.
 */
public interface StatusPatcher {
    /**
     * Makes the object's status {@code desired}.
     *
     * @param previous what the API is believed to hold (last written or observed), or null when unknown; a
     *                 merge patch needs it to delete map keys that {@code desired} no longer has
     * @throws StatusPatchException when the write did not happen (it will be retried)
     */
    void patch(StatusKey key, DesiredStatus desired, DesiredStatus previous) throws StatusPatchException;

    /**
     * Whether writing {@code desired} would leave the object as {@code known} has it (then no write). By default the two
     * are equal; an adapter whose objects hold only part of a status (each gang API's shape) compares those parts.
     *
     * @param known what the API is believed to hold, or null when unknown (never the same)
     */
    default boolean same(StatusKey key, DesiredStatus desired, DesiredStatus known) {
        return desired.equals(known);
    }
}
