package dev.muster.core.preempt;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.preempt.PreemptionPlanner.Unit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One preemption decision's evictions, as {@link VictimEvictions} carries them out. Confined to the core's lock; only
 * {@link VictimEvictions} reads or changes it.
 */
final class EvictionDecision {
    final GangKey preemptor;
    final String why;
    final String id;
    final List<Eviction> evictions = new ArrayList<>();
    List<Eviction> round = List.of(); // the evictions being checked and recorded now
    int checksPending;
    String checkRefused;
    boolean committed; // recorded, and its first evictions sent
    boolean ended;
    PreemptionRecord stored; // the record last stored, null while none is
    // units an earlier leader began to evict (adopted decisions only); by identity: a Unit's equality hashes its pod list
    final Set<Unit> startedEarlier = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    EvictionDecision(GangKey preemptor, String why, String id) {
        this.preemptor = preemptor;
        this.why = why;
        this.id = id;
    }

    /** The decision as the next leader reads it: its victims by unit. */
    PreemptionRecord record() {
        Map<Unit, List<PodId>> units = new LinkedHashMap<>();
        for (Eviction e : evictions) {
            units.computeIfAbsent(e.unit, u -> new ArrayList<>()).add(e.victim.pod());
        }
        return new PreemptionRecord(preemptor, id, new ArrayList<>(units.values()));
    }

    /** Whether an eviction of this decision was accepted (here or by an earlier leader): it may not be abandoned. */
    boolean started() {
        if (!startedEarlier.isEmpty()) {
            return true;
        }
        for (Eviction e : evictions) {
            if (e.accepted) {
                return true;
            }
        }
        return false;
    }

    /** Whether nothing of this ended decision is left to evict ({@code byUid}: the evictions under way, by victim). */
    boolean settled(Map<String, Eviction> byUid) {
        for (Eviction e : evictions) {
            if (!e.accepted && byUid.get(e.victim.pod().uid()) == e) {
                return false;
            }
        }
        return true;
    }

    /** Whether every victim's eviction was accepted. */
    boolean allAccepted() {
        for (Eviction e : evictions) {
            if (!e.accepted) {
                return false;
            }
        }
        return true;
    }

    /** One victim's eviction. */
    static final class Eviction {
        final Victim victim;
        final Unit unit;
        final EvictionDecision decision;
        boolean inFlight;
        boolean accepted;
        int tries;
        long retryAt = Long.MIN_VALUE;

        Eviction(Victim victim, Unit unit, EvictionDecision decision) {
            this.victim = victim;
            this.unit = unit;
            this.decision = decision;
        }

        /**
         * Whether any pod of this eviction's unit was evicted: here, or by an earlier leader (those pods may be gone
         * already, and then no eviction of this decision stands for them).
         */
        boolean unitStarted() {
            if (decision.startedEarlier.contains(unit)) {
                return true;
            }
            for (Eviction x : decision.evictions) {
                if (x.unit == unit && x.accepted) {
                    return true;
                }
            }
            return false;
        }
    }
}
