package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.stream.AllocationEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiPredicate;
import java.util.function.UnaryOperator;

/**
 * What the {@link StatusFolding} keeps of preemption decisions: each victim gang's {@link GangDisruption} (its
 * {@link PodGroupCondition#PREEMPTED} condition), the Events a decision asks for ({@link PreemptionNotes}, told to a
 * {@link GangNoteListener}), which victim gangs each preemptor waits for, and per queue what reclaim took from it and
 * gave to it and what priority preemption took from it ({@link QueuePreemptions}). The tallies count the decisions seen
 * since the controller started; a queue deleted starts from nothing.
 *
 * <p>Confined to the fold's lock: every method is called with it held, and the listener is called under it. Methods that
 * change a gang's disruption return the gangs whose status the fold must compute again.
 */
final class PreemptionRecords {
    private final GangNoteListener notes;
    private final Map<String, QueuePreemptions> tallies = new HashMap<>(); // queues named by a decision
    private final Map<GangKey, Set<GangKey>> victimsOf = new HashMap<>(); // preemptor → its victim gangs, until it binds or gives up

    PreemptionRecords(GangNoteListener notes) {
        this.notes = Objects.requireNonNull(notes, "notes");
    }

    /** What preemption did to {@code queue}, or null when nothing. */
    QueuePreemptions of(String queue) {
        return tallies.get(queue);
    }

    void queueDeleted(String queue) {
        tallies.remove(queue);
    }

    /**
     * A preemption decision: each victim gang's PodGroup gets its {@link PodGroupCondition#PREEMPTED} condition and an
     * Event, the preemptor an Event, and the queues involved count what they lost and won.
     *
     * @param gangs the fold's gang records
     * @param holds whether a pod (uid) of a gang still holds its place in it
     * @param queues told of each queue whose tallies changed
     * @return the victim gangs with a record, whose status is to be computed again (without settling the disruption)
     */
    List<GangKey> decided(AllocationEvent.PreemptionDecided p, Map<GangKey, GangRecord> gangs, BiPredicate<GangKey, String> holds,
                          QueueTallies queues) {
        Set<String> touched = new HashSet<>();
        for (Victim v : p.victims()) {
            if (p.kind() == PreemptionKind.RECLAIM) {
                tally(v.queue(), touched, t -> t.lostToReclaim(v));
                tally(p.queue(), touched, t -> t.wonByReclaim(v));
            } else {
                tally(v.queue(), touched, t -> t.preempted(v));
            }
        }
        touched.forEach(queues::viewChanged);
        GangRecord preemptor = p.bySinglePod() ? null : gangs.get(p.preemptor());
        int waiting = preemptor == null ? 0 : preemptor.members.waiting();
        int toPlace = p.bySinglePod() ? 1 : waiting == 0 && preemptor != null && preemptor.spec != null ? preemptor.spec.minMember() : waiting;
        String reason = p.kind() == PreemptionKind.RECLAIM ? PodGroupCondition.QUEUE_RECLAIM : PodGroupCondition.PRIORITY_PREEMPTION;
        List<GangKey> refresh = new ArrayList<>();
        PreemptionNotes.victimGangs(p).forEach((gang, evicted) -> {
            String message = PreemptionNotes.victim(p, toPlace, evicted);
            notes.noted(new GangNote(gang, PreemptionNotes.VICTIM_REASON, true, PreemptionNotes.ACTION, message));
            GangRecord g = gangs.get(gang);
            if (g == null) {
                return; // no member and no PodGroup seen: nothing to write
            }
            Set<String> holding = new HashSet<>();
            for (Victim v : p.victims()) {
                if (gang.equals(v.gang()) && holds.test(gang, v.pod().uid())) {
                    holding.add(v.pod().uid());
                }
            }
            g.disruption = GangDisruption.decided(reason, message, holding, p.preemptor());
            if (!p.bySinglePod()) { // a single pod's decision is followed by no gang change: its victims settle as they go
                victimsOf.computeIfAbsent(p.preemptor(), k -> new HashSet<>()).add(gang);
            }
            refresh.add(gang);
        });
        if (!p.bySinglePod()) { // a single pod has no PodGroup to tell
            notes.noted(new GangNote(p.preemptor(), PreemptionNotes.PREEMPTOR_REASON, false, PreemptionNotes.ACTION, PreemptionNotes.preemptor(p)));
        }
        return refresh;
    }

    /**
     * A preemptor bound (its victims settle as they go) or gave up — refused, expired, backed off, deleted: its victims
     * not evicted stay, and are no longer waited for.
     *
     * @return the victim gangs reprieved, whose status is to be computed again
     */
    List<GangKey> preemptorMoved(GangKey preemptor, GangState state, Map<GangKey, GangRecord> gangs) {
        if (state != GangState.BOUND && state != GangState.UNSCHEDULABLE && state != GangState.EXPIRED && state != GangState.BACKED_OFF
                && state != GangState.DELETED) {
            return List.of();
        }
        Set<GangKey> victims = victimsOf.remove(preemptor);
        if (victims == null || state == GangState.BOUND) {
            return List.of();
        }
        List<GangKey> refresh = new ArrayList<>();
        for (GangKey v : victims) {
            GangRecord g = gangs.get(v);
            if (g != null && g.disruption != null) {
                g.disruption = g.disruption.reprieved(preemptor);
                refresh.add(v);
            }
        }
        return refresh;
    }

    private void tally(String queue, Set<String> touched, UnaryOperator<QueuePreemptions> change) {
        if (queue == null || queue.isEmpty()) {
            return; // a single pod outside any queue
        }
        tallies.put(queue, change.apply(tallies.getOrDefault(queue, QueuePreemptions.NONE)));
        touched.add(queue);
    }
}
