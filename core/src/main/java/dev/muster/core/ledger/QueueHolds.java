package dev.muster.core.ledger;

import dev.muster.core.resources.ExactSum;
import dev.muster.core.resources.Resources;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What each queue holds in the {@link Ledger} (requests of its pods on nodes, those leaving excepted, plus its gangs'
 * reserved slots), summed exactly, and which queues gave reserved room back since {@link #takeFreed} was last called.
 * Kept by the ledger as its records and slots change. Not thread-safe: confined to the ledger owner's lock.
 */
final class QueueHolds {
    private final Map<String, ExactSum> held = new HashMap<>(); // used + reserved, per queue (exact)
    private final Set<String> freed = new HashSet<>(); // queues whose reserved quota shrank since takeFreed()

    void hold(String queue, Resources r) {
        held.computeIfAbsent(queue, q -> new ExactSum()).add(r);
    }

    void unhold(String queue, Resources r) {
        ExactSum sum = held.computeIfAbsent(queue, q -> new ExactSum());
        sum.subtract(r);
        if (sum.value().isZero()) {
            held.remove(queue);
        }
    }

    /** {@code queue} gave room back (see {@link Ledger#takeFreed}). */
    void freed(String queue) {
        freed.add(queue);
    }

    /** What {@code queue} holds now. */
    Resources of(String queue) {
        ExactSum sum = held.get(queue);
        return sum == null ? Resources.ZERO : sum.value();
    }

    /** A copy: what every queue that holds anything holds. */
    Map<String, Resources> all() {
        Map<String, Resources> out = new HashMap<>();
        held.forEach((q, sum) -> out.put(q, sum.value()));
        return out;
    }

    /** See {@link Ledger#takeFreed}. */
    Set<String> takeFreed() {
        if (freed.isEmpty()) {
            return Set.of();
        }
        Set<String> out = Set.copyOf(freed);
        freed.clear();
        return out;
    }
}
