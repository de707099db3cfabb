package dev.muster.core.gang;

import dev.muster.core.model.Pod;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The nodes kube-scheduler last offered a pod — the candidates of its filter (those that passed its own filters), or of
 * its preemption (those where its filters pass once lower-priority pods are gone) — kept only for
 * pods with constraints Muster does not judge itself ({@link dev.muster.core.model.NodeConstraints#undecided()}: host
 * ports, inter-pod affinity, topology spread, volumes, resource claims), and for pods offered nodes before Muster saw
 * them (their constraints were not known yet). Preemption places such a pod only on nodes offered here: only
 * kube-scheduler knows where those constraints let it run. A pod never offered a node is placed nowhere.
 *
 * <p>Part of the {@link Books}: confined to the core's lock. A pod's entry is replaced by its next filter and dropped
 * when the pod is deleted; at most {@link #MAX_NAMES} node names are kept in all (the oldest pods' offers are forgotten
 * first: such a pod then preempts nothing until it is offered nodes again).
 */
public final class OfferedNodes {
    /** At most this many node names are remembered over all pods (the oldest pods' offers are forgotten first). */
    static final int MAX_NAMES = 200_000;

    private final Map<String, Set<String>> offered = new LinkedHashMap<>(); // uid → its latest offer, oldest first
    private int names; // Σ sizes of the offers kept

    /** kube-scheduler offered {@code pod} these {@code candidates}: remembered when the pod has undecided constraints. */
    public void offered(Pod pod, List<String> candidates) {
        if (pod.constraints().hasUndecided()) {
            keep(pod.uid(), candidates);
        }
    }

    /**
     * kube-scheduler offered these {@code candidates} to the pod {@code uid} before Muster saw it (kube-scheduler's
     * informer was first; the verb's copy of the pod does not tell its constraints): remembered, since kube-scheduler
     * may not offer it again until a cluster event, and read only if the pod turns out to have undecided constraints.
     */
    public void offeredBeforeSeen(String uid, List<String> candidates) {
        keep(uid, candidates);
    }

    private void keep(String uid, List<String> candidates) {
        forget(uid);
        Set<String> nodes = Set.copyOf(candidates); // the latest offer: where its constraints passed most recently
        offered.put(uid, nodes);
        names += nodes.size();
        for (Iterator<Set<String>> it = offered.values().iterator(); names > MAX_NAMES && it.hasNext(); ) {
            names -= it.next().size();
            it.remove();
        }
    }

    /** The nodes offered to the pod so far (read-only), or an empty set when none was. */
    public Set<String> of(String uid) {
        Set<String> nodes = offered.get(uid);
        return nodes == null ? Set.of() : nodes;
    }

    /** The pod is bound, finished or gone. */
    public void forget(String uid) {
        Set<String> was = offered.remove(uid);
        if (was != null) {
            names -= was.size();
        }
    }

    int size() {
        return offered.size();
    }
}
