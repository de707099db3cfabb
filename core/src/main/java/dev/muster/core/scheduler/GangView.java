package dev.muster.core.scheduler;

import dev.muster.core.model.Refusal;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import java.util.List;

/** An immutable picture of one gang. {@code queue} is null while its PodGroup is unknown. */
public record GangView(GangKey key, String queue, GangState state, Refusal why, int minMember, int members,
                       int bound, int waiting, List<String> slotNodes) {
    public GangView {
        slotNodes = List.copyOf(slotNodes);
    }

    public String reason() {
        return why.text();
    }
}
