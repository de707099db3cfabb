package dev.muster.core.scheduler;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The pods Muster's filter refused outright (no node passed), and what they wait for, so that they can be woken
 * ({@link PodWaker}) when the books change in a way that may admit them. kube-scheduler parks such a pod until a
 * cluster event it watches; a Queue edit, room or quota a reservation gives back and a PodGroup edit are none.
 *
 * <p>A pod waits for one of two things:
 * <ul>
 *   <li>its <b>queue</b> — it was refused by its queue's verdict (missing, closed, capability too small, full): woken
 *       when that Queue is created or edited, or the queue's reserved quota shrinks;</li>
 *   <li><b>room</b> — it was refused on room other gangs hold (a reservation's slots): woken when any reserved room is
 *       given back (a slot released or moved).</li>
 * </ul>
 * Either way a member is also woken when its PodGroup is created or edited. A woken pod is forgotten (kube-scheduler
 * tries it again; a refusal then records it anew), so a pod is woken at most once per refusal. A pod bound, finished or
 * deleted, or passed by a later filter, is forgotten.
 *
 * <p>Memory is bounded: at most {@link #MAX_REMEMBERED} pods, the oldest refusal forgotten first (that pod comes back
 * on the next cluster event, or kube-scheduler's flush of parked pods). Confined to the core's lock
 * ({@link GangScheduler}).
 */
final class ParkedPods {
    static final int MAX_REMEMBERED = 10_000;

    /** A refused pod: its gang (null for a single pod) and the queue whose verdict refused it (null: room refused it). */
    record Parked(PodId pod, GangKey gang, String queue) {
        Parked {
            Objects.requireNonNull(pod, "pod");
        }
    }

    private final int max;
    /** uid → the refusal, oldest first. */
    private final LinkedHashMap<String, Parked> parked = new LinkedHashMap<>(64, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Parked> eldest) {
            return size() > max;
        }
    };

    ParkedPods() {
        this(MAX_REMEMBERED);
    }

    ParkedPods(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, got " + max);
        }
        this.max = max;
    }

    /** The filter refused {@code pod} on every node: by {@code queue}'s verdict, or (queue null) on room other gangs hold. */
    void refused(PodId pod, GangKey gang, String queue) {
        parked.remove(pod.uid()); // the newest refusal counts, and is the last to be forgotten
        parked.put(pod.uid(), new Parked(pod, gang, queue));
    }

    /** The pod passed a filter, was bound, finished or was deleted: nothing to wake. */
    void forget(String uid) {
        parked.remove(uid);
    }

    /** Removes and returns the pods refused by {@code queue}'s verdict. */
    List<PodId> takeQueue(String queue) {
        return take(p -> queue.equals(p.queue()));
    }

    /** Removes and returns the pods refused on room other gangs hold. */
    List<PodId> takeRoom() {
        return take(p -> p.queue() == null);
    }

    /** Removes and returns the members of {@code gang}, whatever refused them. */
    List<PodId> takeGang(GangKey gang) {
        return take(p -> gang.equals(p.gang()));
    }

    int size() {
        return parked.size();
    }

    private List<PodId> take(Predicate<Parked> which) {
        if (parked.isEmpty()) {
            return List.of();
        }
        List<PodId> out = new ArrayList<>();
        for (Iterator<Parked> it = parked.values().iterator(); it.hasNext(); ) {
            Parked p = it.next();
            if (which.test(p)) {
                out.add(p.pod());
                it.remove();
            }
        }
        return out;
    }
}
