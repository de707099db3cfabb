package dev.muster.core.gang;

import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * What each pod behind Muster's gate was last told about its gang's wait ({@link GateEvents}), so that a pod is told
 * again only when the reason changes. A new kind of reason (the text with its numbers left out differs: the queue closed
 * where it was full, a ProvisioningRequest {@code Accepted} where it was {@code Requested}) is told at once; a reason
 * whose numbers alone change (a queue's usage, say) at most once every {@link #RETELL_AFTER_NANOS}, its latest text
 * each time. Memory is one entry per gated pod the books know; {@link #forget} drops pods that are gone, ungated, bound
 * or being deleted. Owned by {@link GateLifts}; confined to the core's lock.
 */
final class GateTold {
    /** A pod told one reason is told the same kind with other numbers no sooner than this (30 s). */
    static final long RETELL_AFTER_NANOS = 30_000_000_000L;

    private record Told(String note, long at) {}

    private final Map<String, Told> told = new HashMap<>(); // pod uid → what it was last told, and when (core clock)

    /**
     * The gated members of {@code g} to tell {@code note} at {@code now}: those never told, told another kind of reason,
     * or told other numbers at least {@link #RETELL_AFTER_NANOS} ago. They are recorded as told.
     */
    List<PodId> toTell(Gang g, String note, long now) {
        List<PodId> out = new ArrayList<>();
        for (Pod m : g.members()) {
            if (!QueueGate.carries(m) || m.isBound() || m.terminating()) {
                continue;
            }
            Told t = told.get(m.uid());
            if (t == null || !t.note().equals(note) && (!kind(t.note()).equals(kind(note)) || now - t.at() >= RETELL_AFTER_NANOS)) {
                told.put(m.uid(), new Told(note, now));
                out.add(m.id());
            }
        }
        return out;
    }

    /** The kind of a reason: its text with every number left out. */
    static String kind(String note) {
        return note.replaceAll("[0-9]+", "#");
    }

    /** Forgets the pods {@code done} names (by uid). */
    void forget(Predicate<String> done) {
        told.keySet().removeIf(done);
    }

    int size() {
        return told.size();
    }
}
