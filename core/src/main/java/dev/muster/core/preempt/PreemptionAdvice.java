package dev.muster.core.preempt;

import dev.muster.core.model.GangKey;
import java.util.List;

/**
 * The answer to "what would it take to run this gang now?" ({@code GangScheduler.preemptionAdvice}); nothing is changed
 * to give it.
 */
public sealed interface PreemptionAdvice {
    /** The gang needs nobody's room: {@code why} says (it fits now, it is admitted already, or it runs). */
    record NoneNeeded(String why) implements PreemptionAdvice {}

    /** It would run if these victims were evicted: {@code pods} members placed on {@code nodes} nodes. */
    record Preempt(PreemptionKind kind, List<VictimUnit> victims, int pods, int nodes) implements PreemptionAdvice {
        public Preempt {
            victims = List.copyOf(victims);
        }

        public int victimPods() {
            int n = 0;
            for (VictimUnit u : victims) {
                n += u.pods().size();
            }
            return n;
        }
    }

    /** It cannot run even with preemption, or may not preempt: {@code why} says which. */
    record CannotRun(String why) implements PreemptionAdvice {}

    /** Muster knows no such gang. */
    record Unknown(GangKey gang) implements PreemptionAdvice {}

    /**
     * Victims that go together: a whole gang, a gang's surplus members above its minMember ({@code surplusOnly}), or a
     * single pod ({@code gang} null).
     */
    record VictimUnit(GangKey gang, String queue, int priority, boolean surplusOnly, List<Victim> pods) {
        public VictimUnit {
            pods = List.copyOf(pods);
        }
    }
}
