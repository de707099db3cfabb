package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import java.util.List;
import java.util.Objects;

/**
 * A scheduled gang crossed its minimum: it fell below {@code minMember} members holding their place (bound and
 * not failed, or succeeded) after it had been scheduled whole, or it is whole again after such a loss. One value per
 * crossing, never per input: {@link StatusFolding} reports it to a {@link GangShortfallListener}. Immutable.
 *
 * @param whole     true when the gang is whole again, false when it fell short
 * @param holding   members bound and not failed, plus succeeded ones
 * @param minMember the minimum the gang needs (at least 1)
 * @param lost      the members ({@code namespace/name}) that stopped holding their place since the gang was last
 *                  whole, most recent last, at most {@link #MAX_LOST}; empty when whole
 */
public record GangShortfall(GangKey gang, boolean whole, int holding, int minMember, List<String> lost) {
    /** How many lost members a report names at most. */
    public static final int MAX_LOST = 8;

    public GangShortfall {
        Objects.requireNonNull(gang, "gang");
        lost = lost == null ? List.of() : List.copyOf(lost);
    }

    /** The reason as Kubernetes shows it: {@code GangBelowMinimum} or {@code GangWhole}. */
    public String reason() {
        return whole ? "GangWhole" : "GangBelowMinimum";
    }

    /** The Event it asks for: reason {@link #reason()}, a Warning when short, action {@code CountMembers}. */
    public GangNote asNote() {
        return new GangNote(gang, reason(), !whole, ACTION, note());
    }

    /** The Event's action. */
    public static final String ACTION = "CountMembers";

    /** What a person reads, e.g. {@code 3 of minimum 4 members bound; lost: ns/pod-x}. */
    public String note() {
        String counts = holding + " of minimum " + minMember + " members bound";
        if (whole) {
            return counts + "; whole again";
        }
        return lost.isEmpty() ? counts : counts + "; lost: " + String.join(", ", lost);
    }
}
