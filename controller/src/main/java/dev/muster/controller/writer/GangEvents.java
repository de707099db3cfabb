package dev.muster.controller.writer;

import dev.muster.core.model.GangKey;
import dev.muster.core.status.GangNote;
import dev.muster.core.status.GangNoteListener;
import dev.muster.core.status.GangShortfall;
import dev.muster.core.status.GangShortfallListener;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns what the fold asks to be told into Kubernetes Events, one per {@link GangNote}: membership crossings
 * ({@link GangShortfall}: a scheduled gang fell below its minimum, or is whole again) and preemptions (a victim gang's
 * {@code Preempted}, the preemptor's {@code Preempting}), on the status write path's terms:
 * <ul>
 *   <li>Bounded: at most {@link #PER_GANG} Events wait per gang (a newer one pushes out the oldest membership crossing,
 *       else the oldest), so pending work is bounded by the number of gangs, never by the rate of crossings or
 *       decisions.</li>
 *   <li>Within the same {@link TokenBucket} as status writes, after them in each flush; what the budget does not
 *       cover waits for the next flush.</li>
 *   <li>One attempt per Event: a failed write is logged (at most one line per {@link #FAILURE_LOG_INTERVAL}) and
 *       dropped. An Event is a report, not state; status stays the record.</li>
 *   <li>Only the leader records; a standby drops crossings as they come (its fold sees them too), and losing the
 *       lead drops what waits. A crossing of a PodGroup deleted before its turn is dropped.</li>
 * </ul>
 * Thread-safety: {@code this} guards the pending map, the counters and the failure log state. {@link #crossed} is
 * called under the fold's lock and only touches the map; {@link #flush} (one at a time, on the flush thread) asks the
 * fold whether the PodGroup still exists and calls the recorder without holding {@code this}, so the lock order is
 * always fold, then this.
 */
public final class GangEvents implements GangShortfallListener, GangNoteListener {
    private static final Logger log = LoggerFactory.getLogger(GangEvents.class);
    /** Events kept per gang: a preemption, the loss it causes and the recovery after it, and one more. */
    static final int PER_GANG = 4;
    private static final long FAILURE_LOG_INTERVAL = 10_000_000_000L;

    private final EventRecorder recorder;
    private final TokenBucket budget;
    private final Predicate<GangKey> exists;
    private final LongSupplier ticker;
    private final Map<GangKey, ArrayDeque<GangNote>> pending = new LinkedHashMap<>(); // guarded by this
    private boolean leader; // guarded by this
    private long recorded; // guarded by this
    private long dropped; // guarded by this
    private final LogGate failureLog = new LogGate(FAILURE_LOG_INTERVAL); // guarded by this

    /**
     * @param exists whether the PodGroup is still observed (a crossing of a deleted one is not recorded)
     */
    public GangEvents(EventRecorder recorder, TokenBucket budget, Predicate<GangKey> exists, LongSupplier ticker) {
        this.recorder = Objects.requireNonNull(recorder, "recorder");
        this.budget = Objects.requireNonNull(budget, "budget");
        this.exists = Objects.requireNonNull(exists, "exists");
        this.ticker = Objects.requireNonNull(ticker, "ticker");
    }

    @Override
    public void crossed(GangShortfall change) {
        noted(change.asNote());
    }

    @Override
    public synchronized void noted(GangNote note) {
        if (!leader) {
            return;
        }
        ArrayDeque<GangNote> q = pending.computeIfAbsent(note.gang(), k -> new ArrayDeque<>(PER_GANG));
        if (q.size() == PER_GANG) {
            // the oldest membership crossing goes first: a burst of them (a victim's members leaving) must not push out
            // the preemption that caused it
            Iterator<GangNote> it = q.iterator();
            boolean pushedOut = false;
            while (!pushedOut && it.hasNext()) {
                if (GangShortfall.ACTION.equals(it.next().action())) {
                    it.remove();
                    pushedOut = true;
                }
            }
            if (!pushedOut) {
                q.removeFirst();
            }
            dropped++;
        }
        q.addLast(note);
    }

    /** Only a leader records; standing by drops what waits. */
    public synchronized void setLeader(boolean leader) {
        this.leader = leader;
        if (!leader) {
            pending.clear();
        }
    }

    /** Records waiting Events, oldest gang first, while the budget lasts. Returns how many were recorded. */
    public int flush() {
        int done = 0;
        GangNote next;
        while ((next = take()) != null) {
            if (!exists.test(next.gang())) { // outside our lock: the fold calls crossed() holding its own
                synchronized (this) {
                    dropped++;
                }
                continue;
            }
            try {
                recorder.record(next);
                done++;
                synchronized (this) {
                    recorded++;
                }
            } catch (StatusPatchException e) {
                failed(next, e);
            } catch (RuntimeException e) { // an adapter bug must not stop the flush
                failed(next, new StatusPatchException(StatusPatchException.Kind.TRANSPORT, 0, null, e.toString(), e));
            }
        }
        return done;
    }

    /** The next Event to record within the budget, or null (nothing waits, or no budget left). */
    private synchronized GangNote take() {
        Iterator<Map.Entry<GangKey, ArrayDeque<GangNote>>> it = pending.entrySet().iterator();
        if (leader && it.hasNext()) {
            Map.Entry<GangKey, ArrayDeque<GangNote>> e = it.next();
            if (!budget.tryAcquire()) {
                return null;
            }
            GangNote m = e.getValue().removeFirst();
            if (e.getValue().isEmpty()) {
                it.remove();
            }
            return m;
        }
        return null;
    }

    private synchronized void failed(GangNote m, StatusPatchException e) {
        dropped++;
        long quiet = failureLog.pass(ticker.getAsLong());
        if (quiet >= 0) {
            log.warn("event {} for podgroup {} not recorded ({} {}): {}; dropped{}", m.reason(), m.gang(), e.kind(), e.httpStatus(),
                    e.getMessage(), LogGate.quietSince(quiet));
        }
    }

    /** Events waiting to be recorded: at most {@link #PER_GANG} per gang. */
    public synchronized int pending() {
        int n = 0;
        for (ArrayDeque<GangNote> q : pending.values()) {
            n += q.size();
        }
        return n;
    }

    /** Events recorded since start. */
    public synchronized long recorded() {
        return recorded;
    }

    /** Events not recorded: pushed out, failed, or of a deleted PodGroup. */
    public synchronized long dropped() {
        return dropped;
    }
}
