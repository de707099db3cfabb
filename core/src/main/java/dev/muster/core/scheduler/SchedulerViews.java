package dev.muster.core.scheduler;

import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.PodBinds;
import dev.muster.core.gang.WaitingLine;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The read-only views {@link GangScheduler} gives people, metrics and tests: its {@link SchedulerStats}, one gang's
 * {@link GangView}, and the books checked against their records. Each is built from the books as an immutable copy and
 * changes nothing. Keeps no state of its own. Not thread-safe on its own: confined to the scheduler's lock.
 */
final class SchedulerViews {
    private final Books books;
    private final WaitingLine line;

    SchedulerViews(Books books, WaitingLine line) {
        this.books = Objects.requireNonNull(books, "books");
        this.line = Objects.requireNonNull(line, "line");
    }

    /** See {@link GangScheduler#stats}; {@code synced}: whether cluster sync has listed everything once. */
    SchedulerStats stats(boolean synced) {
        Map<GangState, Integer> byState = new EnumMap<>(GangState.class);
        Map<Refusal.Cause, Integer> byCause = new EnumMap<>(Refusal.Cause.class);
        int idle = 0;
        for (Gang g : books.gangs()) {
            if (g.spec() == null) {
                continue;
            }
            if (g.state() == GangState.WAITING && !g.hasPendingMember()) {
                idle++; // its run finished (or none started) and no member waits: not waiting for anything
                continue;
            }
            byState.merge(g.state(), 1, Integer::sum);
            if (g.why().cause() != Refusal.Cause.NONE) {
                byCause.merge(g.why().cause(), 1, Integer::sum);
            }
        }
        Map<PodBinds.Stage, Integer> binds = books.binds().counts();
        Ledger l = books.ledger();
        return new SchedulerStats(l.nodeCount(), l.overcommittedCount(), l.podCount(), l.reservationCount(),
                binds.get(PodBinds.Stage.WAITING), binds.get(PodBinds.Stage.HELD), binds.get(PodBinds.Stage.BINDING), idle,
                byState, byCause, synced, line.shares(), line.next() == null ? "" : line.next().toString(),
                books.gates().gatedByCause());
    }

    /** See {@link GangScheduler#gang}; null if unknown. */
    GangView gang(GangKey key) {
        Gang g = books.gang(key);
        if (g == null) {
            return null;
        }
        Reservation r = books.ledger().reservation(key);
        List<String> slots = new ArrayList<>();
        if (r != null) {
            for (Slot s : r.slots()) {
                slots.add(s.node());
            }
        }
        return new GangView(key, g.spec() == null ? null : g.queue(), g.state(), g.why(), g.minMember(),
                g.memberCount(), g.bound(), books.binds().count(key, PodBinds.Stage.WAITING), slots);
    }

    /** The ledger's books and the gangs' checked against their records; empty when they balance. */
    List<String> checkInvariants() {
        List<String> problems = new ArrayList<>(books.ledger().checkInvariants());
        problems.addAll(books.checkGangInvariants());
        return problems;
    }
}
