package dev.muster.core.ledger;

import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@link Ledger}'s books checked against its records ({@link Ledger#checkInvariants}): every node's used, reserved,
 * leaving and pod count recomputed from the records, slots, pod holds and set-aside; the schedulable allocatable and what
 * each queue holds recomputed; no pod holding two slots, or a slot and a record; nothing on a node the ledger does not
 * track. Reads only; a pure function of what it is given, called under the ledger owner's lock.
 */
final class LedgerAudit {
    private LedgerAudit() {}

    /** The problems found; empty when the books balance. */
    static List<String> check(NodeEntries nodes, Map<String, PodRecord> pods, Set<String> leaving,
                              Collection<Reservation> reservations, Reservation setAside, Collection<PodHolds.Hold> holds,
                              Resources schedulableAllocatable, Map<String, Resources> heldByQueues) {
        List<String> problems = new ArrayList<>();
        Map<String, Resources> used = new HashMap<>();
        Map<String, Integer> count = new HashMap<>();
        for (PodRecord r : pods.values()) {
            used.merge(r.node(), r.request(), Resources::plus);
            count.merge(r.node(), 1, Integer::sum);
        }
        Map<String, Resources> leavingByNode = new HashMap<>();
        for (String uid : leaving) {
            PodRecord r = pods.get(uid);
            if (r == null) {
                problems.add("pod " + uid + " is marked leaving but holds no record");
            } else {
                leavingByNode.merge(r.node(), r.request(), Resources::plus);
            }
        }
        for (NodeEntry e : nodes.values()) {
            if (!e.leaving().equals(leavingByNode.getOrDefault(e.name(), Resources.ZERO))) {
                problems.add("node " + e.name() + " counts " + e.leaving() + " leaving, its leaving records sum to "
                        + leavingByNode.getOrDefault(e.name(), Resources.ZERO));
            }
        }
        Map<String, Resources> reserved = new HashMap<>();
        if (setAside != null) {
            for (Slot s : setAside.slots()) {
                reserved.merge(s.node(), s.request(), Resources::plus);
            }
        }
        for (PodHolds.Hold h : holds) {
            reserved.merge(h.node(), h.request(), Resources::plus);
            if (pods.containsKey(h.uid())) {
                problems.add("pod " + h.uid() + " holds room on " + h.node() + " and a record");
            }
        }
        Map<String, GangKey> slotOwner = new HashMap<>();
        for (Reservation res : reservations) {
            if (res.slots().isEmpty()) {
                problems.add("reservation of " + res.gang() + " is empty but still held");
            }
            for (Slot s : res.slots()) {
                reserved.merge(s.node(), s.request(), Resources::plus);
                if (s.podUid() != null) {
                    GangKey other = slotOwner.put(s.podUid(), res.gang());
                    if (other != null) {
                        problems.add("pod " + s.podUid() + " holds two slots (" + other + ", " + res.gang() + ")");
                    }
                    if (pods.containsKey(s.podUid())) {
                        problems.add("pod " + s.podUid() + " holds a slot and a record");
                    }
                }
                if (!nodes.containsKey(s.node())) {
                    problems.add(s + " of " + res.gang() + " is on a node the ledger does not track");
                }
            }
        }
        Resources schedulable = Resources.ZERO;
        for (NodeEntry e : nodes.values()) {
            schedulable = schedulable.plus(Ledger.schedulableShare(e));
        }
        if (!schedulable.equals(schedulableAllocatable)) {
            problems.add("schedulable allocatable kept as " + schedulableAllocatable + " but nodes sum to " + schedulable);
        }
        for (NodeEntry e : nodes.values()) {
            Resources u = used.getOrDefault(e.name(), Resources.ZERO);
            Resources rv = reserved.getOrDefault(e.name(), Resources.ZERO);
            if (!u.equals(e.used())) {
                problems.add("node " + e.name() + ": used " + e.used() + " but records sum to " + u);
            }
            if (!rv.equals(e.reserved())) {
                problems.add("node " + e.name() + ": reserved " + e.reserved() + " but slots and pod holds sum to " + rv);
            }
            if (e.podCount() != count.getOrDefault(e.name(), 0)) {
                problems.add("node " + e.name() + ": counts " + e.podCount() + " pods but has " + count.getOrDefault(e.name(), 0) + " records");
            }
        }
        Map<String, Resources> held = new HashMap<>();
        for (PodRecord r : pods.values()) {
            if (!leaving.contains(r.pod().uid())) {
                held.merge(r.queue(), r.request(), Resources::plus);
            }
        }
        for (Reservation res : reservations) {
            for (Slot s : res.slots()) {
                held.merge(res.queue(), s.request(), Resources::plus);
            }
        }
        held.values().removeIf(Resources::isZero);
        if (!held.equals(heldByQueues)) {
            problems.add("queues hold " + heldByQueues + " but records and slots sum to " + held);
        }
        for (String n : used.keySet()) {
            if (!nodes.containsKey(n)) {
                problems.add("pods recorded on node " + n + " which the ledger does not track");
            }
        }
        return problems;
    }
}
