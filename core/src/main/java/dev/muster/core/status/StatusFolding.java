package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.AllocationTotals;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Refusal;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.stream.SequencedEvent;
import java.time.InstantSource;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Folds everything the controller learns into one desired status per Queue and PodGroup (level-based: each
 * input updates an aggregate, the status is a function of the aggregate, never a replay of events).
 *
 * <p>Inputs: the allocation stream ({@link AllocationListener}: per-queue allocated and per-gang state, through
 * the shared {@link AllocationTotals} fold), Queue and PodGroup observations (spec; deletion), and pod
 * observations (gang, phase, bound; deletion — the stream carries no pod phases). Outputs:
 * {@link #desired(StatusKey)}, the views served over gRPC, a {@link StatusChangeListener} call for every
 * object whose desired status (or served view) changed, and a {@link GangShortfallListener} call each time a gang
 * that was scheduled whole falls below its minimum or is whole again (see {@link #refreshGang}), and a {@link GangNoteListener}
 * call for each Event a preemption asks for (its victim gangs', its preemptor's: {@link PreemptionNotes}). An object gets a desired status only once its Queue
 * or PodGroup has been observed; stream facts about objects not (yet) observed are kept in the totals and
 * apply when the object appears.
 *
 * <p>Queue status: {@code state} is the spec's state, except that a Closed (or Closing) spec reports
 * {@code Closing} while PodGroups of the queue are not Completed, then {@code Closed}; the phase counts are
 * this fold's PodGroup phases; {@code allocated} is {@link AllocationTotals#allocated}. PodGroup status: see
 * {@link PodGroupPhases} and {@link PodGroupConditions}, plus the {@link PodGroupCondition#PREEMPTED} condition of a gang
 * a preemption took members from ({@link GangDisruption}); counts come from pod phases. The Queues service's views add
 * what preemption took from and gave to each queue ({@link QueuePreemptions}). A PodGroup's first
 * observation may carry the status the API shows: its phase seeds the phase rule's "previous" (so a
 * Completed group whose pods are gone stays Completed across controller restarts) and its conditions'
 * transition times are kept while their type and status stay the same, and its first {@code Scheduled=True}
 * ({@link PodGroupStatus#initiallyScheduled}) is kept for good.
 *
 * <p>Cold start: a process that has just started learns the cluster piecemeal — PodGroups before their pods, the
 * allocation snapshot last. Stepping the phase rule on that half picture would lose what the observed status
 * told it (a Running group with no pods yet looks like it vanished mid-run). A fold built cold therefore only
 * gathers inputs — no desired status, no views, no listener calls — until {@link #warmUp()}, which the controller
 * calls once the first cluster list and the stream have synced; everything is then computed once from the whole
 * picture.
 *
 * <p>This class is thread-safe: {@code lock} guards every mutable field. The listener is called while the lock
 * is held, in the order the changes happen (see {@link StatusChangeListener}). Everything returned is
 * immutable. Memory is O(queues + PodGroups + live member pods), independent of the event rate.
 */
public final class StatusFolding implements AllocationListener, StatusSource {
    private final ReentrantLock lock = new ReentrantLock();
    private final InstantSource clock;
    private final StatusChangeListener listener;
    private final GangShortfallListener shortfalls;
    private final GangNoteListener notes;

    private final AllocationTotals totals = new AllocationTotals(); // guarded by lock
    private final Map<String, QueueRecord> queues = new HashMap<>(); // guarded by lock
    private final Map<GangKey, GangRecord> gangs = new HashMap<>(); // guarded by lock
    private final Map<String, PodObservation> pods = new HashMap<>(); // guarded by lock; member pods only
    private final Map<String, QueuePreemptions> preemptions = new HashMap<>(); // guarded by lock; queues named by a decision
    private final Map<GangKey, Set<GangKey>> victimsOf = new HashMap<>(); // guarded by lock; preemptor → its victim gangs, until it binds or gives up
    private long appliedSequence; // guarded by lock
    private long duplicateEvents; // guarded by lock
    private long sequenceGaps; // guarded by lock
    private int observedQueues; // guarded by lock
    private int observedPodGroups; // guarded by lock
    private boolean warm; // guarded by lock

    /** A warm fold: computes desired status from the first input on. */
    public StatusFolding(InstantSource clock, StatusChangeListener listener) {
        this(clock, listener, true);
    }

    /**
     * @param warm false for a fold that only gathers inputs until {@link #warmUp()} (see the class comment)
     */
    public StatusFolding(InstantSource clock, StatusChangeListener listener, boolean warm) {
        this(clock, listener, warm, GangShortfallListener.NONE);
    }

    /**
     * @param shortfalls told when a scheduled gang falls below its minimum or is whole again
     */
    public StatusFolding(InstantSource clock, StatusChangeListener listener, boolean warm, GangShortfallListener shortfalls) {
        this(clock, listener, warm, shortfalls, GangNoteListener.NONE);
    }

    /**
     * @param notes told of each Event a preemption asks for (victim gangs, preemptor)
     */
    public StatusFolding(InstantSource clock, StatusChangeListener listener, boolean warm, GangShortfallListener shortfalls,
                         GangNoteListener notes) {
        this.clock = Objects.requireNonNull(clock, "clock");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.shortfalls = Objects.requireNonNull(shortfalls, "shortfalls");
        this.notes = Objects.requireNonNull(notes, "notes");
        this.warm = warm;
    }

    /**
     * Ends the gathering phase of a cold fold: computes every desired status from everything gathered, in one go,
     * and tells the listener about each object. Idempotent.
     */
    public void warmUp() {
        lock.lock();
        try {
            if (warm) {
                return;
            }
            warm = true;
            gangs.forEach(this::refreshGang);
            for (String name : List.copyOf(queues.keySet())) {
                refreshQueue(name, queues.get(name));
            }
        } finally {
            lock.unlock();
        }
    }

    public boolean isWarm() {
        lock.lock();
        try {
            return warm;
        } finally {
            lock.unlock();
        }
    }

    /** A queue's aggregate. Confined to the fold's lock. */
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

    /** A gang's aggregate. Confined to the fold's lock. */
    private static final class GangRecord {
        PodGroupSpec spec; // null until observed, and after deletion
        MemberCounts members = MemberCounts.NONE;
        PodGroupPhase phase; // last computed (or observed before the first computation)
        List<PodGroupCondition> conditions = List.of(); // last computed, stamped
        PodGroupStatus desired; // null while spec is null
        String countedQueue; // the queue whose byPhase counts this gang, or null
        PodGroupPhase countedPhase;
        String occupiedBy = ""; // the owners of the first member seen that has any (scheduler-plugins' occupiedBy)
        PodGroupCondition initiallyScheduled; // the first Scheduled=True, kept from then on (or as observed), null before
        Strength strength = Strength.UNPROVEN;
        final ArrayDeque<String> lost = new ArrayDeque<>(); // members that stopped holding since the gang was last whole; ≤ MAX_LOST
        GangDisruption disruption; // its last preemption, or null
    }

    /** Where a gang stands against its minimum, for shortfall reports. */
    private enum Strength {
        /** Not yet seen whole after it was scheduled: nothing to lose (also after a restart, until it is seen whole). */
        UNPROVEN,
        WHOLE,
        SHORT
    }

    // ---------------------------------------------------------------- allocation stream

    @Override
    public void onSnapshot(AllocationSnapshot snapshot) {
        lock.lock();
        try {
            totals.reset(snapshot);
            appliedSequence = snapshot.sequence();
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
                    viewChanged(name, q);
                }
            }
            reserved.forEach((name, n) -> queues.computeIfAbsent(name, k -> new QueueRecord()).reservations = n);
            gangs.forEach(this::refreshGang);
            for (String name : List.copyOf(queues.keySet())) {
                refreshQueue(name, queues.get(name));
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Applies one event. An event at or below the last applied sequence is a repeat and is ignored (the
     * stream promises none; this keeps a misbehaving source from counting twice).
     */
    @Override
    public void onEvent(SequencedEvent sequenced) {
        lock.lock();
        try {
            if (sequenced.sequence() <= appliedSequence) {
                duplicateEvents++;
                return;
            }
            if (appliedSequence != 0 && sequenced.sequence() != appliedSequence + 1) {
                sequenceGaps++;
            }
            appliedSequence = sequenced.sequence();
            AllocationEvent event = sequenced.event();
            switch (event) {
                case AllocationEvent.PodAllocated a -> {
                    totals.apply(a);
                    refreshQueue(a.queue());
                }
                case AllocationEvent.PodReleased r -> {
                    totals.apply(r);
                    refreshQueue(r.queue());
                }
                case AllocationEvent.QueueShareChanged q -> {
                    totals.apply(q);
                    QueueRecord rec = queues.get(q.queue());
                    if (rec != null) {
                        viewChanged(q.queue(), rec); // the Queues service shows the share; the Queue status has no field for it
                    }
                }
                case AllocationEvent.PreemptionDecided p -> {
                    totals.apply(p);
                    preempted(p);
                }
                case AllocationEvent.GangChanged g -> {
                    AllocationSnapshot.GangStatus before = totals.gang(g.gang());
                    totals.apply(g);
                    AllocationSnapshot.GangStatus after = totals.gang(g.gang());
                    moveReservation(before, after);
                    preemptorMoved(g.gang(), g.state());
                    GangRecord rec = gangs.get(g.gang());
                    if (rec != null) {
                        refreshGang(g.gang(), rec);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void moveReservation(AllocationSnapshot.GangStatus before, AllocationSnapshot.GangStatus after) {
        boolean was = before != null && before.state() == GangState.RESERVED;
        boolean is = after != null && after.state() == GangState.RESERVED;
        if (was && (!is || !before.queue().equals(after.queue()))) {
            QueueRecord q = queues.get(before.queue());
            if (q != null) {
                q.reservations--;
                viewChanged(before.queue(), q);
                dropIfUnused(before.queue(), q);
            }
        }
        if (is && (!was || !before.queue().equals(after.queue()))) {
            QueueRecord q = queues.computeIfAbsent(after.queue(), k -> new QueueRecord());
            q.reservations++;
            viewChanged(after.queue(), q);
        }
    }

    // ---------------------------------------------------------------- observations

    public void observeQueue(QueueSpec spec) {
        lock.lock();
        try {
            QueueRecord q = queues.computeIfAbsent(spec.name(), k -> new QueueRecord());
            if (q.spec == null) {
                observedQueues++;
            }
            boolean specChanged = !spec.equals(q.spec);
            q.spec = spec;
            if (!refreshQueue(spec.name(), q) && specChanged) {
                viewChanged(spec.name(), q); // weight or capability: the served view changed
            }
        } finally {
            lock.unlock();
        }
    }

    public void queueDeleted(String name) {
        lock.lock();
        try {
            QueueRecord q = queues.get(name);
            if (q == null || q.spec == null) {
                return;
            }
            q.spec = null;
            q.desired = null;
            observedQueues--;
            preemptions.remove(name);
            listener.removed(StatusKey.queue(name));
            dropIfUnused(name, q);
        } finally {
            lock.unlock();
        }
    }

    /**
     * @param observed the status the API shows for the PodGroup, or null; used only on the first observation
     *                 (see the class comment)
     */
    public void observePodGroup(PodGroupSpec spec, PodGroupStatus observed) {
        lock.lock();
        try {
            GangRecord g = gangs.computeIfAbsent(spec.key(), k -> new GangRecord());
            if (g.spec == null) {
                observedPodGroups++;
                if (observed != null) {
                    g.phase = observed.phase();
                    g.conditions = observed.conditions();
                    g.initiallyScheduled = observed.initiallyScheduled();
                    if (g.disruption == null) { // a decision that came first is newer than what the object shows
                        g.disruption = GangDisruption.restored(observed.condition(PodGroupCondition.PREEMPTED));
                    }
                }
            }
            g.spec = spec;
            refreshGang(spec.key(), g);
        } finally {
            lock.unlock();
        }
    }

    public void podGroupDeleted(GangKey key) {
        lock.lock();
        try {
            GangRecord g = gangs.get(key);
            if (g == null || g.spec == null) {
                return;
            }
            count(g, null, null);
            g.spec = null;
            g.desired = null;
            g.phase = null;
            g.conditions = List.of();
            g.initiallyScheduled = null;
            g.disruption = null;
            g.strength = Strength.UNPROVEN;
            g.lost.clear();
            observedPodGroups--;
            listener.removed(StatusKey.podGroup(key));
            if (g.members.total() == 0) {
                gangs.remove(key);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A pod was added or changed. Pods outside any gang are not kept. */
    public void observePod(PodObservation pod) {
        lock.lock();
        try {
            PodObservation old = pod.gang() == null ? pods.remove(pod.uid()) : pods.put(pod.uid(), pod);
            if (pod.equals(old)) {
                return;
            }
            boolean sameGang = old != null && pod.gang() != null && pod.gang().equals(old.gang());
            if (old != null && old.gang() != null) {
                leave(old, !sameGang); // within one gang: one refresh below, never a moment without the pod
            }
            if (pod.gang() != null) {
                GangRecord g = gangs.computeIfAbsent(pod.gang(), k -> new GangRecord());
                if (sameGang && old.holding() && !pod.holding()) {
                    noteLost(g, pod);
                }
                g.members = g.members.plus(pod);
                if (g.occupiedBy.isEmpty()) {
                    g.occupiedBy = pod.owners();
                }
                refreshGang(pod.gang(), g);
            }
        } finally {
            lock.unlock();
        }
    }

    public void podDeleted(String uid) {
        lock.lock();
        try {
            PodObservation old = pods.remove(uid);
            if (old != null && old.gang() != null) {
                leave(old, true);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Takes {@code old} out of its gang; with {@code refresh}, recomputes the gang (and drops an unused record). */
    private void leave(PodObservation old, boolean refresh) {
        GangRecord g = gangs.get(old.gang());
        g.members = g.members.minus(old);
        if (!refresh) {
            return;
        }
        if (old.holding()) {
            noteLost(g, old);
        }
        refreshGang(old.gang(), g);
        if (g.spec == null && g.members.total() == 0) {
            gangs.remove(old.gang());
        }
    }

    private static void noteLost(GangRecord g, PodObservation pod) {
        if (g.lost.size() == GangShortfall.MAX_LOST) {
            g.lost.removeFirst();
        }
        g.lost.addLast(pod.name());
    }

    // ---------------------------------------------------------------- reads

    @Override
    public DesiredStatus desired(StatusKey key) {
        lock.lock();
        try {
            return switch (key) {
                case StatusKey.Queue q -> {
                    QueueRecord r = queues.get(q.name());
                    yield r == null ? null : r.desired;
                }
                case StatusKey.PodGroup p -> {
                    GangRecord r = gangs.get(p.gang());
                    yield r == null ? null : r.desired;
                }
            };
        } finally {
            lock.unlock();
        }
    }

    /** The view of an observed queue, or null. */
    public QueueView queue(String name) {
        lock.lock();
        try {
            QueueRecord q = queues.get(name);
            return q == null || q.desired == null ? null : view(q);
        } finally {
            lock.unlock();
        }
    }

    /** Every observed queue, by name. */
    public List<QueueView> queues() {
        lock.lock();
        try {
            List<QueueView> out = new ArrayList<>(observedQueues);
            queues.values().forEach(q -> {
                if (q.desired != null) {
                    out.add(view(q));
                }
            });
            out.sort(Comparator.comparing(QueueView::name));
            return out;
        } finally {
            lock.unlock();
        }
    }

    private QueueView view(QueueRecord q) { // lock held
        String name = q.spec.name();
        return new QueueView(q.spec, q.desired, q.reservations, totals.share(name), preemptions.get(name));
    }

    /** The view of an observed PodGroup, or null. */
    public PodGroupView gang(GangKey key) {
        lock.lock();
        try {
            GangRecord g = gangs.get(key);
            if (g == null || g.desired == null) {
                return null;
            }
            AllocationSnapshot.GangStatus s = totals.gang(key);
            return new PodGroupView(key, g.spec.queue(), g.spec.minMember(), s == null ? null : s.state(),
                    s == null ? "" : s.reason(), g.desired);
        } finally {
            lock.unlock();
        }
    }

    /** Observed Queues plus observed PodGroups: the objects that can have a desired status. */
    public int objectCount() {
        lock.lock();
        try {
            return observedQueues + observedPodGroups;
        } finally {
            lock.unlock();
        }
    }

    /** What the fold holds, for memory accounting and metrics. */
    public record Stats(long appliedSequence, long duplicateEvents, long sequenceGaps, int queues, int podGroups,
                        int queueRecords, int gangRecords, int memberPods) {}

    public Stats stats() {
        lock.lock();
        try {
            return new Stats(appliedSequence, duplicateEvents, sequenceGaps, observedQueues, observedPodGroups,
                    queues.size(), gangs.size(), pods.size());
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- rules (lock held)

    private void refreshQueue(String name) {
        QueueRecord q = queues.get(name);
        if (q != null) {
            refreshQueue(name, q);
        }
    }

    /** Recomputes a queue's desired status; true when it changed (and the listener was told). */
    private boolean refreshQueue(String name, QueueRecord q) {
        if (q.spec == null) {
            dropIfUnused(name, q);
            return false;
        }
        if (!warm) {
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

    private void viewChanged(String name, QueueRecord q) {
        if (warm && q.spec != null) {
            listener.changed(StatusKey.queue(name));
        }
    }

    private void dropIfUnused(String name, QueueRecord q) {
        if (q.unused()) {
            queues.remove(name);
        }
    }

    private void refreshGang(GangKey key, GangRecord g) {
        refreshGang(key, g, true);
    }

    /**
     * @param settle whether a disruption may settle now (not in the refresh that records it: its victims may be gone
     *               from the informers before the decision arrives, and the decision must still be told)
     */
    private void refreshGang(GangKey key, GangRecord g, boolean settle) {
        if (!warm || g.spec == null) {
            return;
        }
        AllocationSnapshot.GangStatus stream = totals.gang(key);
        GangState state = stream == null ? null : stream.state();
        Refusal why = stream == null ? Refusal.NONE : stream.why();
        int minMember = g.spec.minMember();
        if (g.disruption != null && settle) {
            // runs again: members bound and not finished (evicted members that exited 0 count as succeeded, not as running)
            boolean runsAgain = g.members.active() >= Math.max(1, minMember);
            g.disruption = g.disruption.settled(uid -> holds(key, uid), runsAgain);
        }
        boolean preempted = g.disruption != null && g.disruption.active();
        PodGroupPhase phase = PodGroupPhases.next(g.phase, minMember, state, g.members, preempted);
        g.phase = phase;
        List<PodGroupCondition> conditions = PodGroupConditions.desired(phase, minMember, state, why, g.members);
        if (g.disruption != null) {
            conditions = new ArrayList<>(conditions);
            conditions.add(g.disruption.condition());
        }
        g.conditions = stamp(conditions, g.conditions);
        if (g.initiallyScheduled == null) {
            g.initiallyScheduled = trueCondition(g.conditions, PodGroupCondition.SCHEDULED);
        }
        count(g, g.spec.queue(), phase);
        measure(key, g, phase, minMember);
        PodGroupStatus s = new PodGroupStatus(phase, g.conditions, g.members.running(), g.members.succeeded(), g.members.failed(),
                g.members.active() + g.members.finished(), g.occupiedBy, g.initiallyScheduled);
        if (!s.equals(g.desired)) {
            g.desired = s;
            listener.changed(StatusKey.podGroup(key));
        }
    }

    private boolean holds(GangKey gang, String uid) { // lock held
        PodObservation pod = pods.get(uid);
        return pod != null && gang.equals(pod.gang()) && pod.holding();
    }

    /**
     * A preemption decision: each victim gang's PodGroup gets its {@link PodGroupCondition#PREEMPTED} condition and an
     * Event, the preemptor an Event, and the queues involved count what they lost and won.
     */
    private void preempted(AllocationEvent.PreemptionDecided p) { // lock held
        Set<String> touched = new HashSet<>();
        for (Victim v : p.victims()) {
            if (p.kind() == PreemptionKind.RECLAIM) {
                tally(v.queue(), touched, t -> t.lostToReclaim(v));
                tally(p.queue(), touched, t -> t.wonByReclaim(v));
            } else {
                tally(v.queue(), touched, t -> t.preempted(v));
            }
        }
        for (String name : touched) {
            QueueRecord q = queues.get(name);
            if (q != null) {
                viewChanged(name, q);
            }
        }
        GangRecord preemptor = gangs.get(p.preemptor());
        int waiting = preemptor == null ? 0 : preemptor.members.waiting();
        int toPlace = waiting == 0 && preemptor != null && preemptor.spec != null ? preemptor.spec.minMember() : waiting;
        String reason = p.kind() == PreemptionKind.RECLAIM ? PodGroupCondition.QUEUE_RECLAIM : PodGroupCondition.PRIORITY_PREEMPTION;
        PreemptionNotes.victimGangs(p).forEach((gang, evicted) -> {
            String message = PreemptionNotes.victim(p, toPlace, evicted);
            notes.noted(new GangNote(gang, PreemptionNotes.VICTIM_REASON, true, PreemptionNotes.ACTION, message));
            GangRecord g = gangs.get(gang);
            if (g == null) {
                return; // no member and no PodGroup seen: nothing to write
            }
            Set<String> holding = new HashSet<>();
            for (Victim v : p.victims()) {
                if (gang.equals(v.gang()) && holds(gang, v.pod().uid())) {
                    holding.add(v.pod().uid());
                }
            }
            g.disruption = GangDisruption.decided(reason, message, holding, p.preemptor());
            victimsOf.computeIfAbsent(p.preemptor(), k -> new HashSet<>()).add(gang);
            refreshGang(gang, g, false);
        });
        notes.noted(new GangNote(p.preemptor(), PreemptionNotes.PREEMPTOR_REASON, false, PreemptionNotes.ACTION, PreemptionNotes.preemptor(p)));
    }

    /**
     * A preemptor bound (its victims settle as they go) or gave up — refused, expired, backed off, deleted: its victims
     * not evicted stay, and are no longer waited for.
     */
    private void preemptorMoved(GangKey preemptor, GangState state) { // lock held
        if (state != GangState.BOUND && state != GangState.UNSCHEDULABLE && state != GangState.EXPIRED && state != GangState.BACKED_OFF
                && state != GangState.DELETED) {
            return;
        }
        Set<GangKey> victims = victimsOf.remove(preemptor);
        if (victims == null || state == GangState.BOUND) {
            return;
        }
        for (GangKey v : victims) {
            GangRecord g = gangs.get(v);
            if (g != null && g.disruption != null) {
                g.disruption = g.disruption.reprieved(preemptor);
                refreshGang(v, g);
            }
        }
    }

    private void tally(String queue, Set<String> touched, java.util.function.UnaryOperator<QueuePreemptions> change) { // lock held
        if (queue == null || queue.isEmpty()) {
            return; // a single pod outside any queue
        }
        preemptions.put(queue, change.apply(preemptions.getOrDefault(queue, QueuePreemptions.NONE)));
        touched.add(queue);
    }

    /**
     * Membership reports: once a gang has been scheduled ({@link PodGroupStatus#initiallyScheduled}) and seen whole —
     * at least {@code max(1, minMember)} members holding their place ({@link PodObservation#holding}) — falling below
     * that is reported once ({@code whole=false}, naming the members lost since it was last whole), and being whole
     * again once more. A Completed gang whose members go away has lost nothing. A gang first seen short (say, after a
     * restart) is reported only after it has been seen whole.
     */
    private void measure(GangKey key, GangRecord g, PodGroupPhase phase, int minMember) {
        int need = Math.max(1, minMember);
        int holding = g.members.active() + g.members.succeeded();
        boolean whole = holding >= need;
        Strength was = g.strength;
        if (whole) {
            g.lost.clear();
            if (was == Strength.SHORT || (was == Strength.UNPROVEN && g.initiallyScheduled != null)) {
                g.strength = Strength.WHOLE;
            }
            if (was == Strength.SHORT) {
                shortfalls.crossed(new GangShortfall(key, true, holding, need, List.of()));
            }
        } else if (was == Strength.WHOLE && phase != PodGroupPhase.COMPLETED) {
            g.strength = Strength.SHORT;
            shortfalls.crossed(new GangShortfall(key, false, holding, need, List.copyOf(g.lost)));
        }
    }

    private static PodGroupCondition trueCondition(List<PodGroupCondition> conditions, String type) {
        for (PodGroupCondition c : conditions) {
            if (c.type().equals(type) && PodGroupCondition.TRUE.equals(c.status())) {
                return c;
            }
        }
        return null;
    }

    /** Keeps each condition's previous transition time while its type and status stay the same. */
    private List<PodGroupCondition> stamp(List<PodGroupCondition> fresh, List<PodGroupCondition> previous) {
        if (fresh.isEmpty()) {
            return List.of();
        }
        Instant now = null;
        List<PodGroupCondition> out = new ArrayList<>(fresh.size());
        for (PodGroupCondition c : fresh) {
            PodGroupCondition before = null;
            for (PodGroupCondition p : previous) {
                if (p.type().equals(c.type())) {
                    before = p;
                }
            }
            Instant at = c.sameTransition(before) ? before.lastTransitionTime() : null;
            if (at == null) {
                if (now == null) {
                    now = clock.instant().truncatedTo(ChronoUnit.SECONDS);
                }
                at = now;
            }
            out.add(c.at(at));
        }
        return List.copyOf(out);
    }

    /** Moves the gang's contribution to the per-queue phase counts; null queue removes it. */
    private void count(GangRecord g, String queue, PodGroupPhase phase) {
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
            refreshQueue(oldQueue, old);
        }
        if (queue != null) {
            QueueRecord q = queues.computeIfAbsent(queue, k -> new QueueRecord());
            q.byPhase[phase.ordinal()]++;
            refreshQueue(queue, q);
        }
    }
}
