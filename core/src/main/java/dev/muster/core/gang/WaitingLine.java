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
    /** How many waiting gangs of higher priority a gang's turn checks outside a pass ({@link #turnOf}). */
    static final int HIGHER_CHECKED = 8;
    private final Books books;
    private Map<String, FairShare.Share> shares = Map.of();
    private Resources clusterTotal = Resources.ZERO;
    private GangKey next;          // the gang next in line, or null
    private String nextQueue = "";

    private final long setAsideAfterNanos;
    // queue → its waiting gangs, as of the last refresh, plus those that joined and less those admitted since
    private final Map<String, java.util.Set<Gang>> waitingByQueue = new HashMap<>();
    // queue → its waiting gangs as of the last refresh, in line order: highest priority first (as of that refresh)
    private Map<String, List<Gang>> byPriority = Map.of();
    private boolean inPass; // an AdmissionPass is taking the line in order: no turn to check

    /** @param setAsideAfter how long a gang must have waited before anything is set aside for it */
    public WaitingLine(Books books, java.time.Duration setAsideAfter) {
        this.books = books;
        this.setAsideAfterNanos = setAsideAfter.toNanos();
    }

    /** An admission pass starts ({@code true}) or ends: while it runs, gangs are taken in line order. */
    void inPass(boolean running) {
        inPass = running;
    }

    /** A gang may have started waiting between passes: count it in its queue (once) so turns are checked against it. */
    void joined(Gang g, long now) {
        if (g.place.since == Long.MIN_VALUE && waiting(g, now)) {
            g.place.since = now;
            waitingByQueue.computeIfAbsent(g.queue(), q -> new java.util.HashSet<>()).add(g);
        }
    }

    /** A gang was admitted: if the last refresh counted it as waiting, its queue has one gang fewer waiting. */
    void admitted(Gang g) {
        if (g.place.since != Long.MIN_VALUE) {
            g.place.since = Long.MIN_VALUE;
            java.util.Set<Gang> gangs = waitingByQueue.get(g.queue());
            if (gangs != null && gangs.remove(g) && gangs.isEmpty()) {
                waitingByQueue.remove(g.queue());
            }
        }
    }

    /**
     * Outside a pass (a member's filter or bind): why it is not the gang's turn yet — a waiting gang of its queue of
     * higher priority could start now (it would otherwise evict this one by priority as soon as this one took the
     * room), or another queue is further below its fair share and has a waiting gang that could start now (its need
     * fits in the free room and its queue admits it) — or null. The next pass, within a tick, takes the line in order.
     * A gang that cannot start now anyway holds nobody back: holding a turn costs a held bind and a kube-scheduler
     * retry and gains nothing (room it will need is set aside for its gang next in line, see {@link AdmissionPass}).
     */
    dev.muster.core.model.Refusal turnOf(Gang g) {
        if (inPass || waitingByQueue.isEmpty()) {
            return null;
        }
        Resources free = null;
        Gang higher = higherInQueueThatCouldStart(g);
        if (higher != null) {
            // it would evict this gang by priority as soon as this one took the room: the room is its first
            return dev.muster.core.model.Refusal.of(dev.muster.core.model.Refusal.Cause.IN_LINE, "gang " + g.key()
                    + ": waiting for its turn: " + higher.key() + " of higher priority (" + higher.place.priority + " > "
                    + g.place.priority + ") could start");
        }
        double mine = liveRatio(g.queue());
        for (Map.Entry<String, java.util.Set<Gang>> e : waitingByQueue.entrySet()) {
            String q = e.getKey();
            if (q.equals(g.queue()) || liveRatio(q) >= mine - 1e-9) {
                continue;
            }
            if (free == null) {
                free = books.ledger().freeRoom();
            }
            Gang couldStart = firstThatCouldStart(e.getValue(), free);
            if (couldStart != null) {
                FairShare.Share s = shares.get(q);
                return dev.muster.core.model.Refusal.of(dev.muster.core.model.Refusal.Cause.IN_LINE, "gang " + g.key()
                        + ": waiting for its turn: queue " + q + " is further below its fair share of "
                        + FairShare.Share.against(books.ledger().heldByQueue(q), s.fairShare(), clusterTotal) + " and "
                        + couldStart.key() + " could start");
            }
        }
        return null;
    }

    /**
     * A waiting gang of {@code g}'s queue, of higher priority, that could start now (see {@link #couldStart}), or null.
     * Only its queue: a gang of higher priority preempts only within its own queue. The queue's waiting gangs as of the
     * last refresh, highest priority first, and at most {@link #HIGHER_CHECKED} of them (the next pass, within a tick,
     * takes the line in order anyway): a filter costs a few checks, however many gangs wait.
     */
    private Gang higherInQueueThatCouldStart(Gang g) {
        List<Gang> gangs = byPriority.get(g.queue());
        if (gangs == null) {
            return null;
        }
        int priority = placeOf(g).priority;
        Resources free = null;
        int checked = 0;
        long now = books.now();
        for (Gang w : gangs) {
            if (w.place.priority <= priority) {
                return null; // highest first: the rest are not higher either
            }
            if (free == null) {
                free = books.ledger().freeRoom();
            }
            if (couldStart(w, free, now)) {
                return w;
            }
            if (++checked == HIGHER_CHECKED) {
                return null;
            }
        }
        return null;
    }

    /** A waiting gang among {@code gangs} whose need fits in {@code free} and whose queue admits it, or null. */
    private Gang firstThatCouldStart(java.util.Set<Gang> gangs, Resources free) {
        long now = books.now();
        for (Gang w : gangs) {
            if (couldStart(w, free, now)) {
                return w;
            }
        }
        return null;
    }

    /** Whether {@code w} waits, its need fits in {@code free} and its queue admits it. */
    private boolean couldStart(Gang w, Resources free, long now) {
        if (!waiting(w, now)) {
            return false;
        }
        Resources need = needOf(w);
        return need.fitsIn(free) && books.queueVerdict(w.queue(), need, w.key()) instanceof QueueAdmission.Verdict.Admitted;
    }

    /** Whether the gang has waited long enough for room or quota to be set aside for it. */
    boolean waitedLongEnough(Gang g, long now) {
        return g.place.since != Long.MIN_VALUE && now - g.place.since >= setAsideAfterNanos;
    }

    /** Whether the gang waits for admission now: PodGroup known, members exist, not running, not reserved, not backing off. */
    public boolean waiting(Gang g, long now) {
        return g.spec() != null && g.memberCount() > 0 && !g.backingOff(now) && !books.admitted(g);
    }

    /**
     * Recomputes every queue's fair share from what the queues hold and what their waiting gangs still need, and
     * returns the waiting gangs in line order ({@link LineOrder}: each queue's gangs sorted once, O(gangs log gangs);
     * O(queues) per gang taken from it).
     */
    public LineOrder refresh(long now) {
        Ledger ledger = books.ledger();
        Gang[] waiting = new Gang[books.gangCount()];
        int n = 0;
        Map<String, long[]> asks = new HashMap<>();
        // queues with waiting work their capability allows now (less the quota kept for the queue's first gang in line)
        java.util.Set<String> wantMore = new java.util.HashSet<>();
        waitingByQueue.clear();
        for (Gang g : books.gangs()) {
            if (!waiting(g, now)) {
                g.place.since = Long.MIN_VALUE;
            } else {
                if (g.place.since == Long.MIN_VALUE) {
                    g.place.since = now;
                }
                waiting[n++] = g;
                waitingByQueue.computeIfAbsent(g.queue(), q -> new java.util.HashSet<>()).add(g);
                Resources need = placeOf(g).need;
                if (!wantMore.contains(g.queue()) && books.queueVerdict(g.queue(), need, g.key()) instanceof QueueAdmission.Verdict.Admitted) {
                    wantMore.add(g.queue());
                }
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
        Resources total = ledger.schedulableAllocatable();
        clusterTotal = total;
        List<FairShare.Demand> demands = new ArrayList<>();
        for (QueueSpec q : books.queues()) {
            Resources held = ledger.heldByQueue(q.name());
            demands.add(new FairShare.Demand(q, held, held.plus(resources(asks.get(q.name()))), wantMore.contains(q.name())));
        }
        shares = FairShare.compute(total, demands);
        // one sort serves both: the turns' look at higher priorities until the next refresh, and this pass's order
        byPriority = LineOrder.sortedByQueue(java.util.Arrays.asList(waiting).subList(0, n));
        return new LineOrder(byPriority, this::liveRatio);
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

    /**
     * Held ÷ fair share of the queue as it stands now (held changes as the pass admits gangs; the fair share is the
     * last refresh's), so one pass interleaves queues by how far each is below its share.
     */
    public double liveRatio(String queue) {
        FairShare.Share s = shares.get(queue);
        return s == null ? Double.POSITIVE_INFINITY : FairShare.ratio(books.ledger().heldByQueue(queue), s.fairShare());
    }

    /**
     * These gangs (e.g. those whose binds are held) in line order, taken one at a time with the queues' ratios as they
     * stand at each step, so gangs admitted from it interleave queues by how far each is below its share.
     */
    LineOrder orderOf(List<Gang> gangs) {
        for (Gang g : gangs) {
            placeOf(g);
        }
        return LineOrder.of(gangs, this::liveRatio);
    }

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
        if (!need.fitsIn(books.ledger().schedulableAllocatable()) || books.queueVerdict(g.queue(), need) instanceof QueueAdmission.Verdict.Refused) {
            return false;
        }
        Gang current = next == null ? null : books.gang(next);
        if (current == null || !waiting(current, books.now())) {
            return true;
        }
        placeOf(g);
        placeOf(current);
        return LineOrder.compare(g, liveRatio(g.queue()), current, liveRatio(current.queue())) < 0;
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
        QueueSpec q = books.queue(g.queue());
        if (s != null && q != null && q.state() == QueueState.OPEN && s.ratio() > 1) {
            b.append("; queue ").append(g.queue()).append(" is over its fair share of ")
                    .append(FairShare.Share.against(s.held(), s.fairShare(), clusterTotal));
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
