package dev.muster.core.status;

import dev.muster.core.model.GangState;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.AllocationTotals;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * The Queue side of the {@link StatusFolding}: per queue, its spec, how many of its PodGroups are in each phase, how
 * many of its gangs hold a reservation, and the desired {@link QueueStatus} computed from those.
 *
 * <p>Queue status: {@code state} is the spec's state, except that a Closed (or Closing) spec reports {@code Closing}
 * while PodGroups of the queue are not Completed, then {@code Closed}; the phase counts are the fold's PodGroup phases
 * (a PodGroup counts in the phase its status shows, so a preempted gang waiting to run again counts as pending);
 * {@code allocated} is {@link AllocationTotals#allocated}. A queue's record lives while the Queue is observed or anything
 * is counted in it.
 *
 * <p>Confined to the fold's lock: every method is called with it held, and the listener is called under it.
 */
final class QueueTallies {
    private final StatusChangeListener listener;
    private final AllocationTotals totals; // the fold's, read only here
    private final BooleanSupplier warm; // the fold's warm flag
    private final Function<String, QueuePreemptions> preemptions; // what preemption did to a queue, for its view
    private final Map<String, QueueRecord> queues = new HashMap<>();
    private int observed;

    QueueTallies(StatusChangeListener listener, AllocationTotals totals, BooleanSupplier warm, Function<String, QueuePreemptions> preemptions) {
        this.listener = Objects.requireNonNull(listener, "listener");
        this.totals = Objects.requireNonNull(totals, "totals");
        this.warm = Objects.requireNonNull(warm, "warm");
        this.preemptions = Objects.requireNonNull(preemptions, "preemptions");
    }

    /** A queue's aggregate. */
    private static final class QueueRecord {
        QueueSpec spec; // null until observed, and after deletion
        final int[] byPhase = new int[PodGroupPhase.values().length];
        int reservations;
        QueueStatus desired; // null while spec is null

        boolean unused() {
            if (spec != null || reservations != 0) {
                return false;
            }
            for (int n : byPhase) {
                if (n != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    int observed() {
        return observed;
    }

    int records() {
        return queues.size();
    }

    void observe(QueueSpec spec) {
        QueueRecord q = queues.computeIfAbsent(spec.name(), k -> new QueueRecord());
        if (q.spec == null) {
            observed++;
        }
        boolean specChanged = !spec.equals(q.spec);
        q.spec = spec;
        if (!refresh(spec.name(), q) && specChanged) {
            viewChanged(spec.name()); // weight or capability: the served view changed
        }
    }

    /** @return whether the queue was observed (and is now forgotten) */
    boolean deleted(String name) {
        QueueRecord q = queues.get(name);
        if (q == null || q.spec == null) {
            return false;
        }
        q.spec = null;
        q.desired = null;
        observed--;
        listener.removed(StatusKey.queue(name));
        dropIfUnused(name, q);
        return true;
    }

    /** Reservations per queue as a snapshot tells them. */
    void resetReservations(AllocationSnapshot snapshot) {
        Map<String, Integer> reserved = new HashMap<>();
        snapshot.gangs().forEach((key, g) -> {
            if (g.state() == GangState.RESERVED) {
                reserved.merge(g.queue(), 1, Integer::sum);
            }
        });
        for (String name : List.copyOf(queues.keySet())) {
            QueueRecord q = queues.get(name);
            int n = reserved.getOrDefault(name, 0);
            if (q.reservations != n) {
                q.reservations = n;
                viewChanged(name);
            }
        }
        reserved.forEach((name, n) -> queues.computeIfAbsent(name, k -> new QueueRecord()).reservations = n);
    }

    /** A gang's stream state moved from {@code before} to {@code after}: moves its reservation between queues. */
    void moveReservation(AllocationSnapshot.GangStatus before, AllocationSnapshot.GangStatus after) {
        boolean was = before != null && before.state() == GangState.RESERVED;
        boolean is = after != null && after.state() == GangState.RESERVED;
        if (was && (!is || !before.queue().equals(after.queue()))) {
            QueueRecord q = queues.get(before.queue());
            if (q != null) {
                q.reservations--;
                viewChanged(before.queue());
                dropIfUnused(before.queue(), q);
            }
        }
        if (is && (!was || !before.queue().equals(after.queue()))) {
            QueueRecord q = queues.computeIfAbsent(after.queue(), k -> new QueueRecord());
            q.reservations++;
            viewChanged(after.queue());
        }
    }

    /** Moves the gang's contribution to the per-queue phase counts; a null queue removes it. */
    void count(GangRecord g, String queue, PodGroupPhase phase) {
        if (Objects.equals(queue, g.countedQueue) && phase == g.countedPhase) {
            return;
        }
        String oldQueue = g.countedQueue;
        PodGroupPhase oldPhase = g.countedPhase;
        g.countedQueue = queue;
        g.countedPhase = phase;
        if (oldQueue != null) {
            QueueRecord old = queues.get(oldQueue);
            old.byPhase[oldPhase.ordinal()]--;
            refresh(oldQueue, old);
        }
        if (queue != null) {
            QueueRecord q = queues.computeIfAbsent(queue, k -> new QueueRecord());
            q.byPhase[phase.ordinal()]++;
            refresh(queue, q);
        }
    }

    void refresh(String name) {
        QueueRecord q = queues.get(name);
        if (q != null) {
            refresh(name, q);
        }
    }

    void refreshAll() {
        for (String name : List.copyOf(queues.keySet())) {
            refresh(name, queues.get(name));
        }
    }

    /** Recomputes a queue's desired status; true when it changed (and the listener was told). */
    private boolean refresh(String name, QueueRecord q) {
        if (q.spec == null) {
            dropIfUnused(name, q);
            return false;
        }
        if (!warm.getAsBoolean()) {
            return false;
        }
        int[] n = q.byPhase;
        int pending = n[PodGroupPhase.PENDING.ordinal()];
        int inqueue = n[PodGroupPhase.INQUEUE.ordinal()];
        int running = n[PodGroupPhase.RUNNING.ordinal()];
        int unknown = n[PodGroupPhase.UNKNOWN.ordinal()];
        QueueState state = stateOf(q.spec.state(), pending + inqueue + running + unknown);
        QueueStatus s = new QueueStatus(state, pending, inqueue, running, unknown, n[PodGroupPhase.COMPLETED.ordinal()],
                totals.allocated(name));
        if (s.equals(q.desired)) {
            return false;
        }
        q.desired = s;
        listener.changed(StatusKey.queue(name));
        return true;
    }

    /** Closed (or a Closing written by someone) reports Closing while PodGroups are active, then Closed. */
    static QueueState stateOf(QueueState spec, int activePodGroups) {
        return switch (spec) {
            case OPEN -> QueueState.OPEN;
            case CLOSED, CLOSING -> activePodGroups > 0 ? QueueState.CLOSING : QueueState.CLOSED;
            case UNKNOWN -> QueueState.UNKNOWN;
        };
    }

    /** Tells the listener that the served view of an observed queue changed (share, reservations, preemptions, spec). */
    void viewChanged(String name) {
        QueueRecord q = queues.get(name);
        if (q != null && warm.getAsBoolean() && q.spec != null) {
            listener.changed(StatusKey.queue(name));
        }
    }

    private void dropIfUnused(String name, QueueRecord q) {
        if (q.unused()) {
            queues.remove(name);
        }
    }

    QueueStatus desired(String name) {
        QueueRecord q = queues.get(name);
        return q == null ? null : q.desired;
    }

    /** The view of an observed queue, or null. */
    QueueView view(String name) {
        QueueRecord q = queues.get(name);
        return q == null || q.desired == null ? null : view(q);
    }

    /** Every observed queue, by name. */
    List<QueueView> views() {
        List<QueueView> out = new ArrayList<>(observed);
        queues.values().forEach(q -> {
            if (q.desired != null) {
                out.add(view(q));
            }
        });
        out.sort(Comparator.comparing(QueueView::name));
        return out;
    }

    private QueueView view(QueueRecord q) {
        String name = q.spec.name();
        return new QueueView(q.spec, q.desired, q.reservations, totals.share(name), preemptions.apply(name));
    }
}
