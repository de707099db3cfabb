package dev.muster.core.preempt;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import java.util.List;
import java.util.Objects;

/**
 * A preemption decision as it is recorded for the next leader before its first real eviction ({@link Evictor#record}):
 * the preemptor, an id naming this decision (a later decision for the same preemptor has another), and its victims by
 * unit (a unit is a whole gang, a gang's surplus or rest, or one single pod: what must go together).
 */
public record PreemptionRecord(GangKey preemptor, String id, List<List<PodId>> units) {
    public PreemptionRecord {
        Objects.requireNonNull(preemptor, "preemptor");
        Objects.requireNonNull(id, "id");
        if (id.isBlank()) {
            throw new IllegalArgumentException("a preemption record needs an id");
        }
        units = units.stream().map(List::copyOf).toList();
    }
}
