package dev.muster.bench;

import dev.muster.core.status.DesiredStatus;
import dev.muster.core.status.StatusChangeListener;
import dev.muster.core.status.StatusKey;
import dev.muster.core.status.StatusSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A model of Volcano's design (its controller and scheduler both writing Queue status), fed
 * the same event stream as Muster's writer, for contrast:
 *
 * <ul>
 *   <li>every event that changes a Queue's status becomes one update request that carries a copy of the status
 *       (no coalescing: requests name the event, not just the object);</li>
 *   <li>the scheduler writes {@code allocated} of every Queue whose allocations moved, once per 1 s scheduling
 *       cycle; the controller reads Queues from an informer cache that trails the API by {@code informerLag},
 *       so an update attempted within that lag after a scheduler write carries a stale resourceVersion and gets a
 *       409 Conflict;</li>
 *   <li>a conflicted request is re-queued with {@code AddRateLimited}: client-go's default controller rate
 *       limiter lets re-queued items out at 10 per second (burst 100), and each retry can conflict again.</li>
 * </ul>
 * Requests waiting in the rate limiter are the backlog the seed reports growing until OOM. Fresh requests are
 * attempted at once (the worker is assumed infinitely fast), which flatters the model. Not thread-safe.
 */
final class ControllerLoadSeedModel implements StatusChangeListener {
    private static final long SECOND = 1_000_000_000L;

    /** One queued update: the queue, the status it wants to write, and how often it was tried. */
    private record Request(String queue, DesiredStatus status, int attempts) {}

    private final StatusSource fold;
    private final long informerLagNanos;
    private final double retryQps;
    private final int retryBurst;
    private final List<String> arrived = new ArrayList<>(); // queues notified since the last drain
    private final Set<String> movedThisCycle = new HashSet<>();
    private final Map<String, Long> schedulerWroteAt = new HashMap<>();
    private final ArrayDeque<Request> rateLimited = new ArrayDeque<>();
    private double tokens;
    private long lastRefill;
    private long nextCycle = SECOND;
    private long writes;
    private long conflicts;
    private long requests;

    ControllerLoadSeedModel(StatusSource fold, long informerLagNanos, double retryQps, int retryBurst) {
        this.fold = fold;
        this.informerLagNanos = informerLagNanos;
        this.retryQps = retryQps;
        this.retryBurst = retryBurst;
        this.tokens = retryBurst;
    }

    @Override
    public void changed(StatusKey key) {
        if (key instanceof StatusKey.Queue q) {
            arrived.add(q.name()); // read the status after the fold's lock is released
        }
    }

    @Override
    public void removed(StatusKey key) {}

    /** Turns notifications into requests and attempts them; runs the scheduler cycle and the rate limiter. */
    void advance(long now) {
        for (String q : arrived) {
            DesiredStatus s = fold.desired(StatusKey.queue(q));
            if (s != null) {
                requests++;
                movedThisCycle.add(q);
                attempt(new Request(q, s, 0), now);
            }
        }
        arrived.clear();
        while (now >= nextCycle) { // scheduler: one write per moved queue per cycle
            for (String q : movedThisCycle) {
                schedulerWroteAt.put(q, nextCycle);
            }
            movedThisCycle.clear();
            nextCycle += SECOND;
        }
        tokens = Math.min(retryBurst, tokens + (now - lastRefill) * retryQps / SECOND);
        lastRefill = now;
        while (tokens >= 1 && !rateLimited.isEmpty()) {
            tokens -= 1;
            Request r = rateLimited.poll();
            attempt(r, now);
        }
    }

    private void attempt(Request r, long now) {
        Long wrote = schedulerWroteAt.get(r.queue());
        if (wrote != null && now - wrote < informerLagNanos) {
            conflicts++;
            rateLimited.add(new Request(r.queue(), r.status(), r.attempts() + 1));
        } else {
            writes++;
        }
    }

    int backlog() {
        return rateLimited.size();
    }

    long writes() {
        return writes;
    }

    long conflicts() {
        return conflicts;
    }

    long requests() {
        return requests;
    }
}
