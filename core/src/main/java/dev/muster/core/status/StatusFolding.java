package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.Refusal;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationListener;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.AllocationTotals;
import dev.muster.core.stream.SequencedEvent;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Folds everything the controller learns into one desired status per Queue and PodGroup (level-based: each
 * input updates an aggregate, the status is a function of the aggregate, never a replay of events).
 *
 * <p>Inputs: the allocation stream ({@link AllocationListener}: per-queue allocated and per-gang state, through
 * the shared {@link AllocationTotals} fold), Queue and PodGroup observations (spec; deletion), and pod
 * observations (gang, phase, bound; deletion — the stream carries no pod phases). Outputs:
 * {@link #desired(StatusKey)}, the views served over gRPC, a {@link StatusChangeListener} call for every
 * object whose desired status (or served view) changed, a {@link GangShortfallListener} call each time a gang
 * that was scheduled whole falls below its minimum or is whole again ({@link ShortfallDetector}), and a
 * {@link GangNoteListener} call for each Event a preemption asks for ({@link PreemptionRecords}). An object gets a
 * desired status only once its Queue or PodGroup has been observed; stream facts about objects not (yet) observed are
 * kept in the totals and apply when the object appears.
 *
 * <p>This class owns the inputs, the lock and the PodGroup side; {@link QueueTallies} the Queue side (phase counts,
 * reservations, Queue status, views); {@link PreemptionRecords} what decisions did (victims' conditions, Events, per-queue
 * tallies); {@link ShortfallDetector} membership reports; {@link ConditionTimes} transition times. PodGroup status: see
 * {@link PodGroupPhases} and {@link PodGroupConditions}, plus the
 * {@link PodGroupCondition#PREEMPTED} condition of a gang a preemption took members from ({@link GangDisruption}) —
 * while it is True the gang waits to run again (never Completed); counts come from pod phases. A PodGroup's first
 * observation may carry the status the API shows: its phase seeds the phase rule's "previous" (so a Completed group
 * whose pods are gone stays Completed across controller restarts) and its conditions' transition times are kept while
 * their type and status stay the same, and its first {@code Scheduled=True} ({@link PodGroupStatus#initiallyScheduled})
 * is kept for good.
 *
 * <p>Cold start: a process that has just started learns the cluster piecemeal — PodGroups before their pods, the
 * allocation snapshot last. Stepping the phase rule on that half picture would lose what the observed status
 * told it (a Running group with no pods yet looks like it vanished mid-run). A fold built cold therefore only
 * gathers inputs — no desired status, no views, no listener calls — until {@link #warmUp()}, which the controller
 * calls once the first cluster list and the stream have synced; everything is then computed once from the whole
 * picture.
 *
 * <p>This class is thread-safe: {@code lock} guards every mutable field, here and in the helpers above (which are
 * confined to it). The listeners are called while the lock is held, in the order the changes happen (see
 * {@link StatusChangeListener}). Everything returned is immutable. Memory is O(queues + PodGroups + live member pods),
 * independent of the event rate.
 */
public final class StatusFolding implements AllocationListener, StatusSource {
    private final ReentrantLock lock = new ReentrantLock();
    private final StatusChangeListener listener;
    private final ConditionTimes times;
    private final ShortfallDetector shortfalls;

    private final AllocationTotals totals = new AllocationTotals(); // guarded by lock
    private final QueueTallies queues; // guarded by lock
    private final PreemptionRecords preemptions; // guarded by lock
    private final Map<GangKey, GangRecord> gangs = new HashMap<>(); // guarded by lock
    private final Map<String, PodObservation> pods = new HashMap<>(); // guarded by lock; member pods only
    private long appliedSequence; // guarded by lock
    private long duplicateEvents; // guarded by lock
    private long sequenceGaps; // guarded by lock
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
        this.times = new ConditionTimes(clock);
        this.listener = Objects.requireNonNull(listener, "listener");
        this.shortfalls = new ShortfallDetector(shortfalls);
        this.preemptions = new PreemptionRecords(notes);
        this.queues = new QueueTallies(listener, totals, () -> this.warm, preemptions::of);
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
            queues.refreshAll();
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

    // ---------------------------------------------------------------- allocation stream

    @Override
    public void onSnapshot(AllocationSnapshot snapshot) {
        lock.lock();
        try {
            totals.reset(snapshot);
            appliedSequence = snapshot.sequence();
            queues.resetReservations(snapshot);
            gangs.forEach(this::refreshGang);
            queues.refreshAll();
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
                    queues.refresh(a.queue());
                }
                case AllocationEvent.PodReleased r -> {
                    totals.apply(r);
                    queues.refresh(r.queue());
                }
                case AllocationEvent.QueueShareChanged q -> {
                    totals.apply(q);
                    queues.viewChanged(q.queue()); // the Queues service shows the share; the Queue status has no field for it
                }
                case AllocationEvent.PreemptionDecided p -> {
                    totals.apply(p);
                    for (GangKey victim : preemptions.decided(p, gangs, this::holds, queues)) {
                        refreshGang(victim, gangs.get(victim), false);
                    }
                }
                case AllocationEvent.GangChanged g -> {
                    AllocationSnapshot.GangStatus before = totals.gang(g.gang());
                    totals.apply(g);
                    queues.moveReservation(before, totals.gang(g.gang()));
                    for (GangKey victim : preemptions.preemptorMoved(g.gang(), g.state(), gangs)) {
                        refreshGang(victim, gangs.get(victim));
                    }
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

    // ---------------------------------------------------------------- observations

    public void observeQueue(QueueSpec spec) {
        lock.lock();
        try {
            queues.observe(spec);
        } finally {
            lock.unlock();
        }
    }

    public void queueDeleted(String name) {
        lock.lock();
        try {
            if (queues.deleted(name)) {
                preemptions.queueDeleted(name);
            }
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
            queues.count(g, null, null);
            g.forgetPodGroup();
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
                    ShortfallDetector.noteLost(g, pod);
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
            ShortfallDetector.noteLost(g, old);
        }
        refreshGang(old.gang(), g);
        if (g.spec == null && g.members.total() == 0) {
            gangs.remove(old.gang());
        }
    }

    // ---------------------------------------------------------------- reads

    @Override
    public DesiredStatus desired(StatusKey key) {
        return locked(() -> switch (key) {
            case StatusKey.Queue q -> queues.desired(q.name());
            case StatusKey.PodGroup p -> {
                GangRecord r = gangs.get(p.gang());
                yield r == null ? null : r.desired;
            }
        });
    }

    /** The view of an observed queue, or null. */
    public QueueView queue(String name) {
        return locked(() -> queues.view(name));
    }

    /** Every observed queue, by name. */
    public List<QueueView> queues() {
        return locked(queues::views);
    }

    /** The view of an observed PodGroup, or null. */
    public PodGroupView gang(GangKey key) {
        return locked(() -> {
            GangRecord g = gangs.get(key);
            if (g == null || g.desired == null) {
                return null;
            }
            AllocationSnapshot.GangStatus s = totals.gang(key);
            return new PodGroupView(key, g.spec.queue(), g.spec.minMember(), s == null ? null : s.state(),
                    s == null ? "" : s.reason(), g.desired);
        });
    }

    /** The views of every observed PodGroup (as {@link #gang} gives each), in no particular order. */
    public List<PodGroupView> gangs() {
        return locked(() -> {
            List<PodGroupView> out = new ArrayList<>();
            for (GangKey key : gangs.keySet()) {
                PodGroupView v = gang(key); // the lock is reentrant
                if (v != null) {
                    out.add(v);
                }
            }
            return out;
        });
    }

    /** Observed Queues plus observed PodGroups: the objects that can have a desired status. */
    public int objectCount() {
        return locked(() -> queues.observed() + observedPodGroups);
    }

    /** What the fold holds, for memory accounting and metrics. */
    public record Stats(long appliedSequence, long duplicateEvents, long sequenceGaps, int queues, int podGroups,
                        int queueRecords, int gangRecords, int memberPods) {}

    public Stats stats() {
        return locked(() -> new Stats(appliedSequence, duplicateEvents, sequenceGaps, queues.observed(), observedPodGroups,
                queues.records(), gangs.size(), pods.size()));
    }

    /** {@code read} under the fold's lock. */
    private <T> T locked(Supplier<T> read) {
        lock.lock();
        try {
            return read.get();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- the PodGroup rule (lock held)
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
        g.stamped(times.stamp(conditions, g.conditions));
        queues.count(g, g.spec.queue(), phase);
        shortfalls.measure(key, g, phase, minMember);
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
}
