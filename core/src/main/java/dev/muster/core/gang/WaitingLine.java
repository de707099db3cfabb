package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.queue.FairShare;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The order in which waiting gangs get capacity, and who is next in line. Confined to the core's lock
 * ({@link Books}); refreshed by each {@link AdmissionPass}.
 *
 * <p><b>Order.</b> Higher priority first (a gang's priority is its highest member {@code spec.priority}); then the
 * gang whose queue is furthest below its fair share ({@link FairShare.Share#ratio()}, smallest first); then the
 * oldest (the order in which the core first heard of the gang).
 *
 * <p><b>Next in line.</b> The first gang in that order that does not fit yet is <em>next in line</em>: room that it
 * can use is set aside for it as it frees up ({@link Ledger#setAside}), up to what it needs, so a stream of smaller
 * gangs cannot starve it. Everything else — room on nodes its members do not fit on, room beyond what it needs — stays
 * free for smaller gangs and single pods (backfill). See {@link AdmissionPass} for why this cannot deadlock.
 */
public final class WaitingLine {
    private final Books books;
    private Map<String, FairShare.Share> shares = Map.of();
    private Resources clusterTotal = Resources.ZERO;
    private GangKey next;          // the gang next in line, or null
    private String nextQueue = "";

    private final long setAsideAfterNanos;

    /** @param setAsideAfter how long a gang must have waited before anything is set aside for it */
    public WaitingLine(Books books, java.time.Duration setAsideAfter) {
        this.books = books;
        this.setAsideAfterNanos = setAsideAfter.toNanos();
    }

    /** Whether the gang has waited long enough for room or quota to be set aside for it. */
    boolean waitedLongEnough(Gang g, long now) {
        return g.place.since != Long.MIN_VALUE && now - g.place.since >= setAsideAfterNanos;
    }

    /** Whether the gang waits for admission now: PodGroup known, members exist, not running, not reserved, not backing off. */
    public boolean waiting(Gang g, long now) {
        return g.spec() != null && !g.running() && g.memberCount() > 0 && !g.backingOff(now)
                && books.ledger().reservation(g.key()) == null;
    }

    /**
     * Recomputes every queue's fair share from what the queues hold and what their waiting gangs still need, and
     * returns the waiting gangs in line order, lazily: O(gangs) to build, O(log gangs) per gang taken from it.
     */
    public Order refresh(long now) {
        Ledger ledger = books.ledger();
        Gang[] waiting = new Gang[books.gangs().size()];
        int n = 0;
        Map<String, long[]> asks = new HashMap<>();
        for (Gang g : books.gangs().values()) {
            if (!waiting(g, now)) {
                g.place.since = Long.MIN_VALUE;
            } else {
                if (g.place.since == Long.MIN_VALUE) {
                    g.place.since = now;
                }
                waiting[n++] = g;
                Resources need = placeOf(g).need;
                long[] sum = asks.computeIfAbsent(g.queue(), q -> new long[need.width()]);
                if (sum.length < need.width()) {
                    sum = java.util.Arrays.copyOf(sum, need.width());
                    asks.put(g.queue(), sum);
                }
                for (int i = 0; i < need.width(); i++) {
                    sum[i] += need.get(i);
                }
            }
        }
        Resources total = schedulable(ledger);
        clusterTotal = total;
        List<FairShare.Demand> demands = new ArrayList<>();
        for (QueueSpec q : books.queues().values()) {
            Resources held = ledger.heldByQueue(q.name());
            demands.add(new FairShare.Demand(q, held, held.plus(resources(asks.get(q.name())))));
        }
        shares = FairShare.compute(total, demands);
        for (int i = 0; i < n; i++) {
            waiting[i].place.ratio = ratio(waiting[i].queue());
        }
        return new Order(waiting, n);
    }

    private static Resources resources(long[] amounts) {
        if (amounts == null) {
            return Resources.ZERO;
        }
        Resources.Builder b = Resources.builder();
        for (int i = 0; i < amounts.length; i++) {
            b.set(i, amounts[i]);
        }
        return b.build();
    }

    /** Waiting gangs in line order, taken one at a time from a binary heap (most passes stop early). */
    public static final class Order {
        private final Gang[] heap;
        private int size;

        Order(Gang[] gangs, int size) {
            this.heap = gangs;
            this.size = size;
            for (int i = size / 2 - 1; i >= 0; i--) {
                siftDown(i);
            }
        }

        public boolean isEmpty() {
            return size == 0;
        }

        public int size() {
            return size;
        }

        /** The next gang in line (removed). */
        public Gang poll() {
            Gang first = heap[0];
            heap[0] = heap[--size];
            heap[size] = null;
            if (size > 0) {
                siftDown(0);
            }
            return first;
        }

        private void siftDown(int i) {
            Gang g = heap[i];
            while (true) {
                int child = 2 * i + 1;
                if (child >= size) {
                    break;
                }
                if (child + 1 < size && ORDER.compare(heap[child + 1], heap[child]) < 0) {
                    child++;
                }
                if (ORDER.compare(g, heap[child]) <= 0) {
                    break;
                }
                heap[i] = heap[child];
                i = child;
            }
            heap[i] = g;
        }
    }

    /** Sorts gangs (e.g. those with held binds) in line order, with the ratios of the last refresh. */
    void sort(List<Gang> gangs) {
        for (Gang g : gangs) {
            placeOf(g).ratio = ratio(g.queue());
        }
        gangs.sort(ORDER);
    }

    /** Line order: higher priority, then the queue furthest below its fair share, then the older gang. */
    static final Comparator<Gang> ORDER = (a, b) -> {
        int c = Integer.compare(b.place.priority, a.place.priority);
        if (c == 0) {
            c = Double.compare(a.place.ratio, b.place.ratio);
        }
        return c != 0 ? c : Long.compare(a.arrival(), b.arrival());
    };

    /** The gang's priority and need, recomputed only when the gang changed since. */
    private Gang.LinePlace placeOf(Gang g) {
        Gang.LinePlace p = g.place;
        if (p.version != g.version()) {
            p.version = g.version();
            p.priority = g.priority();
            p.need = need(g);
            p.toldBehind = null;
        }
        return p;
    }

    /**
     * Whether {@code g}, refused for want of room outside a pass (at its members' filter or bind), should be next in
     * line instead of the gang that is (or because none is): it comes first in line order, its queue admits what it
     * needs, and that fits in the cluster's schedulable allocatable.
     */
    boolean shouldBeNext(Gang g) {
        if (g.key().equals(next)) {
            return true;
        }
        if (!waitedLongEnough(g, books.now())) {
            return false;
        }
        Resources need = needOf(g);
        if (!need.fitsIn(WaitingLine.schedulable(books.ledger())) || books.queueVerdict(g.queue(), need) instanceof QueueAdmission.Verdict.Refused) {
            return false;
        }
        Gang current = next == null ? null : books.gang(next);
        if (current == null || !waiting(current, books.now())) {
            return true;
        }
        placeOf(g).ratio = ratio(g.queue());
        placeOf(current).ratio = ratio(current.queue());
        return ORDER.compare(g, current) < 0;
    }

    private static Resources schedulable(Ledger ledger) {
        Resources total = Resources.ZERO;
        for (NodeEntry e : ledger.nodes()) {
            if (e.known() && e.schedulable()) {
                total = total.plus(e.allocatable());
            }
        }
        return total;
    }

    /** Held ÷ fair share of the queue's dominant resource (see {@link FairShare.Share#ratio()}); unknown queues last. */
    public double ratio(String queue) {
        FairShare.Share s = shares.get(queue);
        return s == null ? Double.POSITIVE_INFINITY : s.ratio();
    }

    /** Each queue's share, as of the last refresh, by queue name. */
    public Map<String, FairShare.Share> shares() {
        return shares;
    }

    /** The schedulable cluster's allocatable, as of the last refresh. */
    public Resources clusterTotal() {
        return clusterTotal;
    }

    /** The gang next in line (room is set aside for it), or null. */
    public GangKey next() {
        return next;
    }

    void next(Gang g) {
        next = g == null ? null : g.key();
        nextQueue = g == null ? "" : g.queue();
    }

    /**
     * What a waiting gang is told besides its own refusal: that it is next in line, that it waits behind the gang
     * that is, and that its queue holds more than its fair share. Empty when there is nothing to add.
     */
    public String noteFor(Gang g) {
        StringBuilder b = new StringBuilder();
        if (next != null) {
            if (next.equals(g.key())) {
                b.append("; next in line: room that frees up is set aside for it");
            } else {
                b.append("; waiting behind ").append(next).append(" (next in line in queue ").append(nextQueue).append(')');
            }
        }
        Books.QuotaAside kept = books.quotaKept(g.queue());
        if (kept != null && !kept.gang().equals(g.key())) {
            b.append("; waiting behind ").append(kept.gang()).append(" (first in line for queue ").append(g.queue()).append("'s capability)");
        }
        FairShare.Share s = shares.get(g.queue());
        QueueSpec q = books.queues().get(g.queue());
        if (s != null && q != null && q.state() == QueueState.OPEN && s.ratio() > 1) {
            b.append("; queue ").append(g.queue()).append(" is over its fair share (holds ")
                    .append(FairShare.Share.percentOf(s.held(), clusterTotal)).append("%, share ")
                    .append(FairShare.Share.percentOf(s.fairShare(), clusterTotal)).append("%)");
        }
        return b.toString();
    }

    /** A gang's need (see {@link #need}), cached until the gang changes. */
    public Resources needOf(Gang g) {
        return placeOf(g).need;
    }

    /**
     * Whether the gang must be told (again) that it waits behind the gang next in line: not when it was told so
     * already and nothing about it changed since, nor — unless {@code retell} — when it was told it waits behind
     * another gang (when the gang next in line changes, only the gangs nearest the front are told again, so a change
     * at the front does not rewrite the reason of every waiting gang). Records that it has been told.
     */
    boolean mustTellBehind(Gang g, boolean retell) {
        Gang.LinePlace p = placeOf(g);
        if (next != null && next.equals(p.toldBehind) || (p.toldBehind != null && !retell)) {
            return false;
        }
        p.toldBehind = next;
        return true;
    }

    /** What the gang still needs to start (see {@link GangAdmission#stillNeeded}). */
    public Resources need(Gang g) {
        Resources sum = Resources.ZERO;
        for (GangPlanner.Member m : GangAdmission.stillNeeded(books.ledger(), g)) {
            sum = sum.plus(m.request());
        }
        return sum;
    }
}
