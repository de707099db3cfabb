package dev.muster.core.scheduler;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The preempt verb's policy: which of kube-scheduler's preemption candidates (its DefaultPreemption, for a pod no node
 * could take) Muster lets stand ({@link GangScheduler#preempt}, which calls it under the scheduler's lock). Keeps no
 * state; reads the books. Not thread-safe on its own: confined to the scheduler's lock.
 */
final class PreemptVerb {
    private final Books books;

    PreemptVerb(Books books) {
        this.books = Objects.requireNonNull(books, "books");
    }

    /** See {@link GangScheduler#preempt}. */
    Map<String, Victims> answer(Pod preemptor, Map<String, Victims> candidates) {
        Pod known = books.pod(preemptor.uid());
        Pod p = known != null ? known : preemptor;
        if (p.gang() != null) {
            return Map.of();
        }
        Map<String, Victims> out = new LinkedHashMap<>();
        for (Map.Entry<String, Victims> c : candidates.entrySet()) {
            Map<GangKey, Integer> taken = new HashMap<>();
            dev.muster.core.resources.Resources freed = dev.muster.core.resources.Resources.ZERO;
            for (String uid : c.getValue().podUids()) {
                PodRecord r = books.ledger().pod(uid);
                if (r != null && r.node().equals(c.getKey()) && !books.ledger().isLeaving(uid)) {
                    freed = freed.plus(r.request());
                }
                if (r != null && r.gang() != null) {
                    taken.merge(r.gang(), 1, Integer::sum);
                }
            }
            boolean breaksGang = false;
            for (Map.Entry<GangKey, Integer> t : taken.entrySet()) {
                Gang g = books.gang(t.getKey());
                breaksGang |= g != null && (g.running() ? !g.mayLose(t.getValue()) : g.spec() != null);
            }
            dev.muster.core.ledger.NodeEntry e = books.ledger().node(c.getKey());
            boolean roomForIt = e == null || p.request().fitsIn(e.free().plus(freed));
            if (!breaksGang && roomForIt) {
                out.put(c.getKey(), c.getValue());
            }
        }
        return out;
    }
}
