package dev.muster.core.scheduler;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.preempt.Preemptions;
import dev.muster.core.resources.Resources;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The preempt verb's policy: which of kube-scheduler's preemption candidates (its DefaultPreemption, for a pod no node
 * could take) Muster lets stand ({@link GangScheduler#preempt}, which calls it under the scheduler's lock), and when
 * Muster takes room for a single pod itself instead. Keeps no state of its own; reads the books and asks
 * {@link Preemptions}. Not thread-safe on its own: confined to the scheduler's lock.
 */
final class PreemptVerb {
    private final Books books;
    private final Preemptions preemptions;

    PreemptVerb(Books books, Preemptions preemptions) {
        this.books = Objects.requireNonNull(books, "books");
        this.preemptions = Objects.requireNonNull(preemptions, "preemptions");
    }

    /** See {@link GangScheduler#preempt}. */
    Map<String, Victims> answer(Pod preemptor, Map<String, Victims> candidates, long now) {
        Pod known = books.pod(preemptor.uid());
        Pod p = known != null ? known : preemptor;
        if (known != null) {
            books.offered().offered(p, List.copyOf(candidates.keySet())); // where kube-scheduler's filters would pass it
        } else {
            books.offered().offeredBeforeSeen(p.uid(), List.copyOf(candidates.keySet()));
        }
        if (p.gang() != null || preemptions.preemptingForPod(p.uid())) {
            return Map.of();
        }
        Map<String, Victims> out = new LinkedHashMap<>();
        for (Map.Entry<String, Victims> c : candidates.entrySet()) {
            Map<GangKey, Integer> taken = new HashMap<>();
            Set<String> victims = new HashSet<>(c.getValue().podUids());
            Resources freed = Resources.ZERO;
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
                breaksGang |= g != null && (g.running() ? !g.mayLose(t.getValue() + alreadyLost(g, victims)) : g.spec() != null);
            }
            NodeEntry e = books.ledger().node(c.getKey());
            boolean roomForIt = e == null || p.request().fitsIn(e.free().plus(freed));
            if (!breaksGang && roomForIt) {
                out.put(c.getKey(), c.getValue());
            }
        }
        if (out.isEmpty() && !candidates.isEmpty()) {
            preemptions.singlePodAsked(p, now); // Muster takes room for it itself, keeping gangs whole
        }
        return out;
    }

    /** How many of {@code g}'s members holding room are on their way out already (being evicted, or deleted), not in {@code victims}. */
    private int alreadyLost(Gang g, Set<String> victims) {
        int lost = 0;
        for (Pod m : g.members()) {
            if (!victims.contains(m.uid()) && books.ledger().pod(m.uid()) != null
                    && (books.ledger().isLeaving(m.uid()) || m.terminating())) {
                lost++;
            }
        }
        return lost;
    }
}
