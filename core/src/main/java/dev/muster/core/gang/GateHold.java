package dev.muster.core.gang;

import java.util.Map;

/**
 * A reason to keep a gang's members behind Muster's scheduling gate after its queue admits it. The gate is lifted only
 * when every hold answers {@code null}. Called under the core's lock ({@link Books}); must not block.
 */
public interface GateHold {
    /** Why {@code gang} must stay gated at {@code now} (millis), or {@code null} when this hold lets it go. */
    String reason(Gang gang, long now);

    /**
     * Whether room was bought for {@code gang} and is coming (nodes an autoscaler provisioned for it, say): the admission
     * pass makes it the gang next in line, so the room is set aside for it as each node registers and nothing else is
     * admitted onto it meanwhile (false by default).
     */
    default boolean claimsRoom(Gang gang) {
        return false;
    }

    /** Annotations the lift adds to every member of {@code gang} in the same patch (empty when none). */
    default Map<String, String> annotations(Gang gang) {
        return Map.of();
    }
}
