package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.stream.AllocationEvent.PreemptionDecided;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a preemption decision says to people, a pure function of the decision and how many pods the preemptor places:
 * <ul>
 *   <li>each victim gang: {@code preempted by ml/train-big (priority 1000) to place 8 pods; evicting 3 of its pods}
 *       (reclaim: {@code reclaimed by queue b for ml/x (priority 1000) to place 8 pods; ...}; a single pod:
 *       {@code preempted by pod ml/serve-0 (priority 1000) to place 1 pod; ...}) — the Event
 *       {@value #VICTIM_REASON} (Warning) and the message of its PodGroup's disruption condition;</li>
 *   <li>the preemptor: {@code preempting 2 gangs (10 pods) and 3 pods on 3 nodes} (reclaim:
 *       {@code reclaiming 2 gangs (10 pods) from queue a on 3 nodes}) — the Event {@value #PREEMPTOR_REASON} (Normal), for a
 *       gang only (a single pod has no PodGroup to tell).</li>
 * </ul>
 * Single pods (no PodGroup) count in the preemptor's note; they have no PodGroup to tell. Stateless.
 */
public final class PreemptionNotes {
    public static final String VICTIM_REASON = "Preempted";
    public static final String PREEMPTOR_REASON = "Preempting";
    /** The Events' action. */
    public static final String ACTION = "Preempt";

    private PreemptionNotes() {}

    /** The victim gangs of {@code p}, each with how many of its pods are evicted, in the decision's order. */
    public static Map<GangKey, Integer> victimGangs(PreemptionDecided p) {
        Map<GangKey, Integer> out = new LinkedHashMap<>();
        for (Victim v : p.victims()) {
            if (v.gang() != null) {
                out.merge(v.gang(), 1, Integer::sum);
            }
        }
        return out;
    }

    /**
     * What a victim gang is told.
     *
     * @param toPlace the preemptor's pods waiting to be placed, or 0 when not known (the clause is left out)
     * @param evicted how many of the victim gang's pods go
     */
    public static String victim(PreemptionDecided p, int toPlace, int evicted) {
        StringBuilder sb = new StringBuilder();
        if (p.kind() == PreemptionKind.RECLAIM) {
            sb.append("reclaimed by queue ").append(p.queue()).append(" for ");
        } else {
            sb.append("preempted by ");
        }
        sb.append(p.preemptorName()).append(" (priority ").append(p.priority()).append(')');
        if (toPlace > 0) {
            sb.append(" to place ").append(count(toPlace, "pod"));
        }
        return sb.append("; evicting ").append(evicted).append(" of its pods").toString();
    }

    /** What the preemptor is told. */
    public static String preemptor(PreemptionDecided p) {
        Set<GangKey> gangs = new HashSet<>();
        int gangPods = 0;
        int singles = 0;
        Set<String> queues = new TreeSet<>();
        for (Victim v : p.victims()) {
            if (v.gang() == null) {
                singles++;
            } else {
                gangs.add(v.gang());
                gangPods++;
            }
            if (!v.queue().isEmpty()) {
                queues.add(v.queue());
            }
        }
        List<String> parts = new ArrayList<>(2);
        if (!gangs.isEmpty()) {
            parts.add(count(gangs.size(), "gang") + " (" + count(gangPods, "pod") + ")");
        }
        if (singles > 0) {
            parts.add(count(singles, "pod"));
        }
        StringBuilder sb = new StringBuilder(p.kind() == PreemptionKind.RECLAIM ? "reclaiming " : "preempting ");
        sb.append(parts.isEmpty() ? "nothing" : String.join(" and ", parts));
        if (p.kind() == PreemptionKind.RECLAIM && !queues.isEmpty()) {
            sb.append(queues.size() == 1 ? " from queue " : " from queues ").append(String.join(", ", queues));
        }
        return sb.append(" on ").append(count(p.nodes(), "node")).toString();
    }

    /** {@code 1 pod}, {@code 3 pods}. */
    public static String count(int n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
