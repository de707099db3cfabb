package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import java.util.Objects;

/**
 * What the Queues service shows of a gang ("why is my job not starting?"). Immutable.
 *
 * @param state  the extender's latest state, or null when the stream has not mentioned the gang
 * @param reason the extender's reason ("" when none)
 */
public record PodGroupView(GangKey key, String queue, int minMember, GangState state, String reason, PodGroupStatus status) {
    public PodGroupView {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(status, "status");
        reason = reason == null ? "" : reason;
    }
}
