package dev.muster.core.scheduler;

import dev.muster.core.gang.AdmissionHold;
import dev.muster.core.gang.Books;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.FirstFew;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.time.Duration;

/**
 * What a verb may act on, checked before it changes anything, whatever transport brought it: the verbs believe the
 * cluster (what the informers showed), never the request. A verb about a pod the cluster has not shown, a pod of
 * another scheduler, one already bound elsewhere or being deleted, or a bind onto a node the pod was never filtered
 * onto is refused with a reason, and nothing is assumed, reserved or recorded for it.
 *
 * <ul>
 *   <li>filter: the pod must be known from the cluster, of Muster's profile, not bound, not terminating; the verb then
 *       decides about the cluster's pod (not the request's copy), and remembers the nodes it passed, for bind.</li>
 *   <li>bind: the same, the pod's own node constraints must admit the node ({@link NodeConstraintCheck}), and the node
 *       must be one the last filter of that pod passed (kube-scheduler binds only where the extender's filter let it), or
 *       hold a slot of the pod's gang.</li>
 * </ul>
 *
 * <p>Confined to the core's lock ({@link GangScheduler}). The nodes remembered per pod are dropped when the pod is
 * bound, finishes or is deleted, and at most {@link #MAX_REMEMBERED} pods are remembered (oldest forgotten first:
 * its bind is then refused and kube-scheduler filters it again). Each is kept as node ids ({@link PassedNodes}): at
 * most about 700 bytes for a pod passed on 5,000 nodes, a few dozen for one passed on its one node.
 */
final class VerbGuard {
    static final int MAX_REMEMBERED = 50_000;

    private final Books books;
    private final String schedulerName;
    /** uid → the nodes its last filter passed, compactly ({@link PassedNodes}). */
    private final Map<String, PassedNodes> filteredOnto = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, PassedNodes> eldest) {
            return size() > MAX_REMEMBERED;
        }
    };

    private final AdmissionHold hold;
    private final BooleanSupplier synced;
    private final Runnable handOver;

    /**
     * @param hold     gang admission, held until the preemption records of an earlier leader are read
     * @param synced   whether the cluster was listed once (before that the adapters answer no verb)
     * @param handOver starts reading those records ({@link dev.muster.core.preempt.Preemptions#handOver})
     */
    VerbGuard(Books books, String schedulerName, AdmissionHold hold, BooleanSupplier synced, Runnable handOver) {
        this.books = books;
        this.schedulerName = schedulerName;
        this.hold = hold;
        this.synced = synced;
        this.handOver = handOver;
    }

    /**
     * For a filter refused for a reason that ends by itself: completes with true once it ended (then filter again), with
     * false after {@code within}; null for any other cause. {@link VerbRefusedException.Cause#NOT_SEEN}: the informers
     * show {@code uid} ({@link PodArrivals}); {@link VerbRefusedException.Cause#HANDOVER}: the preemption records are read
     * and the room they name reserved ({@link AdmissionHold}). Completed once the lock is released, never under it.
     */
    java.util.concurrent.CompletableFuture<Boolean> whenFilterable(VerbRefusedException.Cause cause, String uid, Duration within,
                                                                   PodArrivals arrivals) {
        return switch (cause) {
            case NOT_SEEN -> books.pod(uid) != null ? java.util.concurrent.CompletableFuture.completedFuture(true) : arrivals.await(uid, within);
            case HANDOVER -> hold.whenLifted(within);
            default -> null;
        };
    }

    /**
     * The cluster's pod that {@code requested} names, when a filter may decide about it. No pod is filtered while
     * admission is held ({@link AdmissionHold}): the filter is refused with {@link VerbRefusedException.Cause#HANDOVER}
     * (the adapters wait for the hold to end and filter again, see {@link #whenFilterable}), and the records are asked for.
     *
     * @throws VerbRefusedException saying why not; nothing changed
     */
    Pod filterable(Pod requested) {
        Pod known = known(requested.id());
        if (known.isBound()) {
            throw new VerbRefusedException(VerbRefusedException.Cause.BOUND, "pod " + requested.id() + " is already bound to " + known.nodeName() + "; nothing to filter");
        }
        if (hold.held() && synced.getAsBoolean()) {
            handOver.run();
            throw new VerbRefusedException(VerbRefusedException.Cause.HANDOVER, "pod " + requested.id() + ": this muster extender leads but"
                    + " has not read the preemption decisions an earlier leader recorded yet, and admits nothing before");
        }
        return known;
    }

    /**
     * After a filter of {@code uid}: the nodes it passed, kept as node ids ({@link PassedNodes}: a bit set or sorted ids,
     * not the list of names, which at 50,000 pending pods passed on 5,000 nodes each held about 1 GB).
     */
    void filtered(String uid, List<String> feasible) {
        if (feasible.isEmpty()) {
            filteredOnto.remove(uid);
        } else {
            filteredOnto.put(uid, PassedNodes.of(feasible));
        }
    }

    /** Whether the last filter of pod {@code uid} passed it on {@code node} (false when none is remembered). */
    boolean passed(String uid, String node) {
        PassedNodes p = filteredOnto.get(uid);
        return p != null && p.contains(node);
    }

    /**
     * Null when {@code pod} may be bound to {@code node}, else why not (nothing changed). A pod bound to that very node
     * already passes (a repeated bind is answered "bound" by the barrier).
     */
    String whyNotBindable(PodId pod, String node) {
        Pod known;
        try {
            known = known(pod);
        } catch (VerbRefusedException e) {
            return e.getMessage();
        }
        if (known.isBound()) {
            return known.nodeName().equals(node) ? null : "pod " + pod + " is already bound to " + known.nodeName();
        }
        String excluded = NodeConstraintCheck.whyNotOnto(known, node, books.ledger());
        if (excluded != null) {
            return excluded; // the pod's own nodeSelector, required node affinity or tolerations forbid it, whoever asks
        }
        PassedNodes passed = filteredOnto.get(pod.uid());
        if ((passed == null || !passed.contains(node)) && !slotOfItsGang(known, node)) {
            return "pod " + pod + " was not filtered onto node " + node + (passed == null ? " (muster has passed it on no node)"
                    : " (muster's last filter passed it on " + describe(passed) + ")") + "; kube-scheduler filters it again";
        }
        return null;
    }

    /** The pod is bound, finished or gone: nothing of it is remembered any more. */
    void forget(String uid) {
        filteredOnto.remove(uid);
    }

    private Pod known(PodId id) {
        Pod known = books.pod(id.uid());
        if (known == null || !known.id().equals(id)) {
            throw new VerbRefusedException(VerbRefusedException.Cause.NOT_SEEN, "pod " + id + " (uid " + id.uid() + ") has not been seen in the cluster by muster"
                    + (known == null ? "" : " (that uid is " + known.id() + ")") + ": muster acts only on pods its informers have shown;"
                    + " a pod just created is retried by kube-scheduler once muster has seen it");
        }
        if (!known.schedulerName().isEmpty() && !known.schedulerName().equals(schedulerName)) {
            throw new VerbRefusedException(VerbRefusedException.Cause.OTHER_SCHEDULER, "pod " + id + " is scheduled by " + known.schedulerName() + ", not by " + schedulerName
                    + ": muster acts only on pods of its own scheduler profile");
        }
        if (known.terminating()) {
            throw new VerbRefusedException(VerbRefusedException.Cause.TERMINATING, "pod " + id + " is being deleted");
        }
        return known;
    }

    private boolean slotOfItsGang(Pod pod, String node) {
        if (pod.gang() == null) {
            return false;
        }
        Reservation r = books.ledger().reservation(pod.gang());
        if (r == null) {
            return false;
        }
        for (Slot s : r.slots()) {
            if (s.node().equals(node) && (pod.uid().equals(s.podUid()) || s.podUid() == null)) {
                return true;
            }
        }
        return false;
    }

    private static String describe(PassedNodes nodes) {
        return FirstFew.shown(nodes.some(3), nodes.size());
    }
}
