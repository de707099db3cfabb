package dev.muster.core.gang;

import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The queue-admission gate's part of the books: the queue quota each lifted gang holds until it is admitted, when each
 * pod's lift was last sent, and the gated gangs by cause as of the last sweep ({@link GateLifts}). Owned by
 * {@link Books}; confined to the core's lock.
 *
 * <p><b>What a lift commits.</b> Lifting a gang counts what it still needs against its queue's capability (for every
 * other gang's queue verdict) until the gang is admitted — then its reservation counts instead — or until its deadline
 * passes, whichever comes first. So two lifts never both take the same quota. A lifted gang that is not admitted within
 * its deadline keeps no quota: its pods are ungated for good (a gate cannot be added back) and it waits like a gang
 * without the gate.
 */
public final class GateBooks {
    /** Quota held by a lifted gang that is not admitted yet. */
    record Lifted(String queue, Resources amount, long untilNanos) {}

    private final Map<String, Map<GangKey, Lifted>> byQueue = new HashMap<>();
    private final Map<GangKey, Lifted> lifted = new HashMap<>();
    private final Map<String, Long> sent = new HashMap<>(); // pod uid → when its lift was last sent (core clock)
    private Map<String, Integer> gatedByCause = Map.of();

    /** {@code gang} was lifted: it holds {@code amount} of {@code queue}'s quota until admitted or {@code untilNanos}. */
    void commit(GangKey gang, String queue, Resources amount, long untilNanos) {
        Lifted l = new Lifted(queue, amount, untilNanos);
        Lifted old = lifted.put(gang, l);
        if (old != null) {
            byQueue.get(old.queue()).remove(gang);
        }
        byQueue.computeIfAbsent(queue, q -> new HashMap<>()).put(gang, l);
    }

    /** Whether {@code gang} was lifted and still holds quota for it. */
    public boolean lifted(GangKey gang) {
        return lifted.containsKey(gang);
    }

    /** The quota of {@code queue} held by lifted gangs other than {@code asking} that {@code books} shows not admitted. */
    Resources heldFor(String queue, GangKey asking, Books books) {
        Map<GangKey, Lifted> of = byQueue.get(queue);
        if (of == null || of.isEmpty()) {
            return Resources.ZERO;
        }
        Resources sum = Resources.ZERO;
        for (Map.Entry<GangKey, Lifted> e : of.entrySet()) {
            Gang g = books.gang(e.getKey());
            if (!e.getKey().equals(asking) && g != null && g.memberCount() > 0 && !books.admitted(g)) {
                sum = sum.plus(e.getValue().amount());
            }
        }
        return sum;
    }

    /** Forgets the quota of lifted gangs that are admitted, gone (or without pods), or past their deadline at {@code now}. */
    void prune(long now, Books books) {
        for (Iterator<Map.Entry<GangKey, Lifted>> it = lifted.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<GangKey, Lifted> e = it.next();
            Gang g = books.gang(e.getKey());
            if (g == null || g.memberCount() == 0 || books.admitted(g) || now - e.getValue().untilNanos() >= 0) {
                byQueue.get(e.getValue().queue()).remove(e.getKey());
                it.remove();
            }
        }
    }

    /** Whether a lift for pod {@code uid} may be sent at {@code now}: none was, or the last one is {@code retryNanos} old. */
    boolean maySend(String uid, long now, long retryNanos) {
        Long at = sent.get(uid);
        return at == null || now - at >= retryNanos;
    }

    void sent(String uid, long now) {
        sent.put(uid, now);
    }

    /** Forgets the lifts sent for pods {@code done} says need none any more (ungated, or gone). */
    void forgetSent(Predicate<String> done) {
        sent.keySet().removeIf(done);
    }

    /** Lifts sent and not yet seen done. */
    public int sentCount() {
        return sent.size();
    }

    /** Gangs kept gated at the last sweep, by cause ({@code queue}, {@code hold}, {@code foreign-gate}). */
    public Map<String, Integer> gatedByCause() {
        return gatedByCause;
    }

    void gatedByCause(Map<String, Integer> counts) {
        gatedByCause = Map.copyOf(counts);
    }
}
