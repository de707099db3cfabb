package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import java.util.List;
import java.util.Objects;

/**
 * Membership reports: once a gang has been scheduled ({@link PodGroupStatus#initiallyScheduled}) and seen whole — at
 * least {@code max(1, minMember)} members holding their place ({@link PodObservation#holding}) — falling below that is
 * reported once ({@code whole=false}, naming the members lost since it was last whole), and being whole again once more.
 * A Completed gang whose members go away has lost nothing. A gang first seen short (say, after a restart) is reported
 * only after it has been seen whole. While a preemption's condition is True ({@link GangDisruption}) succeeded members do
 * not count: an evicted member that exited 0 does not make the gang whole again.
 *
 * <p>Keeps no state of its own: where each gang stands lives in its {@link GangRecord}. Called by the
 * {@link StatusFolding} with its lock held; the listener is called under that lock.
 */
final class ShortfallDetector {
    private final GangShortfallListener listener;

    ShortfallDetector(GangShortfallListener listener) {
        this.listener = Objects.requireNonNull(listener, "shortfalls");
    }

    /** Remembers that {@code pod} stopped holding its place in {@code g} (the newest {@link GangShortfall#MAX_LOST}). */
    static void noteLost(GangRecord g, PodObservation pod) {
        if (g.lost.size() == GangShortfall.MAX_LOST) {
            g.lost.removeFirst();
        }
        g.lost.addLast(pod.name());
    }

    /** Looks at the gang after its status was computed; reports a crossing of its minimum. */
    void measure(GangKey key, GangRecord g, PodGroupPhase phase, int minMember) {
        int need = Math.max(1, minMember);
        boolean preempted = g.disruption != null && g.disruption.active();
        int holding = g.members.active() + (preempted ? 0 : g.members.succeeded());
        boolean whole = holding >= need;
        GangRecord.Strength was = g.strength;
        if (whole) {
            g.lost.clear();
            if (was == GangRecord.Strength.SHORT || (was == GangRecord.Strength.UNPROVEN && g.initiallyScheduled != null)) {
                g.strength = GangRecord.Strength.WHOLE;
            }
            if (was == GangRecord.Strength.SHORT) {
                listener.crossed(new GangShortfall(key, true, holding, need, List.of()));
            }
        } else if (was == GangRecord.Strength.WHOLE && phase != PodGroupPhase.COMPLETED) {
            g.strength = GangRecord.Strength.SHORT;
            listener.crossed(new GangShortfall(key, false, holding, need, List.copyOf(g.lost)));
        }
    }
}
