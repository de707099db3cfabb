package dev.muster.core.scheduler;

import dev.muster.core.model.GangKey;
import dev.muster.core.stream.GangState;
import java.util.List;

/** An immutable picture of one gang. {@code queue} is null while its PodGroup is unknown. */
public record GangView(GangKey key, String queue, GangState state, String reason, int minMember, int members,
                       int bound, int waiting, List<String> slotNodes) {
    public GangView {
        slotNodes = List.copyOf(slotNodes);
    }
}
