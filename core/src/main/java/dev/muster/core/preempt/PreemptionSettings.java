package dev.muster.core.preempt;

import java.time.Duration;
import java.util.Objects;

/**
 * What preemption may do.
 *
 * @param priority         a waiting gang may take room from running pods and gangs of strictly lower priority in its
 *                         own queue (and from single pods of lower priority, which belong to no queue)
 * @param reclaim          a gang whose queue is below its fair share may take room back from queues above theirs
 * @param victimMinRuntime a gang or pod is not a victim before it has held its room this long (against thrash)
 * @param margin           how long after its victims' grace period a preemptor's reservation waits for their room
 */
public record PreemptionSettings(boolean priority, boolean reclaim, Duration victimMinRuntime, Duration margin) {
    public static final PreemptionSettings DEFAULT = new PreemptionSettings(true, true, Duration.ZERO, Duration.ofSeconds(30));
    public static final PreemptionSettings OFF = new PreemptionSettings(false, false, Duration.ZERO, Duration.ofSeconds(30));

    public PreemptionSettings {
        Objects.requireNonNull(victimMinRuntime, "victimMinRuntime");
        Objects.requireNonNull(margin, "margin");
        if (victimMinRuntime.isNegative()) {
            throw new IllegalArgumentException("victim minimum run time must not be negative, got " + victimMinRuntime);
        }
    }

    public boolean any() {
        return priority || reclaim;
    }
}
