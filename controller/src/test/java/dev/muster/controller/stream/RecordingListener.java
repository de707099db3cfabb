package dev.muster.controller.stream;

import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.AllocationTotals;
import dev.muster.core.stream.SequencedEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link AllocationListener} that checks the stream contract as it goes — after a snapshot at S the
 * next event is S+1, otherwise each event follows the previous one — and folds what it receives the way
 * the controller does. Violations are recorded (a throw would only make the client reconnect), so tests
 * assert on them from the test thread. Thread-safe: one lock guards everything.
 */
final class RecordingListener implements AllocationListener {
    private final Object lock = new Object();
    private final AllocationTotals totals = new AllocationTotals(); // guarded by lock
    private final List<String> violations = new ArrayList<>(); // guarded by lock
    private final List<Long> eventSequences = new ArrayList<>(); // guarded by lock
    private final List<AllocationSnapshot> snapshots = new ArrayList<>(); // guarded by lock
    private long last; // guarded by lock: the sequence folded so far
    private boolean delivering; // guarded by lock: detects overlapping calls

    @Override
    public void onSnapshot(AllocationSnapshot snapshot) {
        enter();
        synchronized (lock) {
            totals.reset(snapshot);
            snapshots.add(snapshot);
            last = snapshot.sequence();
        }
        leave();
    }

    @Override
    public void onEvent(SequencedEvent event) {
        enter();
        synchronized (lock) {
            if (event.sequence() != last + 1) {
                violations.add("event " + event.sequence() + " after " + last);
            }
            totals.apply(event.event());
            eventSequences.add(event.sequence());
            last = event.sequence();
        }
        leave();
    }

    private void enter() {
        synchronized (lock) {
            if (delivering) {
                violations.add("overlapping listener calls");
            }
            delivering = true;
        }
    }

    private void leave() {
        synchronized (lock) {
            delivering = false;
        }
    }

    long last() {
        synchronized (lock) {
            return last;
        }
    }

    List<String> violations() {
        synchronized (lock) {
            return List.copyOf(violations);
        }
    }

    List<Long> eventSequences() {
        synchronized (lock) {
            return List.copyOf(eventSequences);
        }
    }

    List<AllocationSnapshot> snapshots() {
        synchronized (lock) {
            return List.copyOf(snapshots);
        }
    }

    /** What the listener has folded so far. */
    AllocationSnapshot folded() {
        synchronized (lock) {
            return totals.snapshot(last);
        }
    }
}
