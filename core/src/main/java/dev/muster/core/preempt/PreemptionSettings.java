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
 * @param reclaimBand      the band around fair share, as a fraction of it, within which reclaim does not fire: a queue
 *                         reclaims only while it holds less than {@code 1 - reclaimBand} of its fair share, and only
 *                         from queues holding more than {@code 1 + reclaimBand} of theirs (on the dominant resource), so
 *                         queues near their share do not trade gangs
 */
public record PreemptionSettings(boolean priority, boolean reclaim, Duration victimMinRuntime, Duration margin, double reclaimBand) {
    /** The band around fair share by default: 10% of it. */
    public static final double DEFAULT_RECLAIM_BAND = 0.1;
    public static final PreemptionSettings DEFAULT = new PreemptionSettings(true, true, Duration.ZERO, Duration.ofSeconds(30), DEFAULT_RECLAIM_BAND);
    public static final PreemptionSettings OFF = new PreemptionSettings(false, false, Duration.ZERO, Duration.ofSeconds(30), DEFAULT_RECLAIM_BAND);

    public PreemptionSettings {
        Objects.requireNonNull(victimMinRuntime, "victimMinRuntime");
        Objects.requireNonNull(margin, "margin");
        if (victimMinRuntime.isNegative()) {
            throw new IllegalArgumentException("victim minimum run time must not be negative, got " + victimMinRuntime);
        }
        if (!(reclaimBand >= 0 && reclaimBand < 1)) {
            throw new IllegalArgumentException("reclaim band must be a fraction of fair share from 0 up to (not including) 1, got " + reclaimBand);
        }
    }

    /** These settings with the band around fair share {@code band}. */
    public PreemptionSettings withReclaimBand(double band) {
        return new PreemptionSettings(priority, reclaim, victimMinRuntime, margin, band);
    }

    public boolean any() {
        return priority || reclaim;
    }
}
