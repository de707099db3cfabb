package dev.muster.core.status;

import java.time.Instant;
import java.time.InstantSource;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Stamps the conditions a rule computed ({@link PodGroupConditions}, without times) with their
 * {@code lastTransitionTime}: a condition keeps its previous time while its type and status stay the same
 * ({@link PodGroupCondition#sameTransition}); otherwise it gets now, in whole seconds (the API's precision). Thread-safe.
 */
final class ConditionTimes {
    private final InstantSource clock;

    ConditionTimes(InstantSource clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    List<PodGroupCondition> stamp(List<PodGroupCondition> fresh, List<PodGroupCondition> previous) {
        if (fresh.isEmpty()) {
            return List.of();
        }
        Instant now = null;
        List<PodGroupCondition> out = new ArrayList<>(fresh.size());
        for (PodGroupCondition c : fresh) {
            PodGroupCondition before = null;
            for (PodGroupCondition p : previous) {
                if (p.type().equals(c.type())) {
                    before = p;
                }
            }
            Instant at = c.sameTransition(before) ? before.lastTransitionTime() : null;
            if (at == null) {
                if (now == null) {
                    now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
                }
                at = now;
            }
            out.add(c.at(at));
        }
        return List.copyOf(out);
    }
}
