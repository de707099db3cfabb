package dev.muster.core.scheduler;

import dev.muster.core.gang.AdmissionPass;
import dev.muster.core.gang.BindBarrier;
import dev.muster.core.gang.Books;
import dev.muster.core.gang.Gang;
import dev.muster.core.gang.HeldBinds;
import dev.muster.core.gang.PodBinds;
import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodHolds;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.ledger.SlotSteering;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.Refusal;
import java.util.ArrayList;

/**
 * What the cluster tells the core: nodes, pods, PodGroups and Queues as cluster sync observes them, folded
 * into the books; slots that pods muster did not place invalidated are repaired; every change that may admit
 * a gang with held binds retries it. Only the cluster adds pods: a verb's request never does ({@link VerbGuard}).
 * Confined to the core's lock.
 */
final class ClusterIntake {
    private final Books books;
    private final Ledger ledger;
    private final BindBarrier barrier;
    private final HeldBinds held;
    private final SlotSteering steering;
    private final AdmissionPass pass;

    ClusterIntake(Books books, BindBarrier barrier, HeldBinds held, SlotSteering steering, AdmissionPass pass) {
        this.books = books;
        this.pass = pass;
        this.ledger = books.ledger();
        this.barrier = barrier;
        this.held = held;
        this.steering = steering;
    }

    void upsertNode(Node node) {
        NodeEntry before = ledger.node(node.name());
        boolean relabelled = before != null && before.known() && !before.labels().equals(node.labels());
        ledger.upsertNode(node);
        repair(node.name(), relabelled);
        pass.roomFreed(books.now());
    }

    void deleteNode(String name) {
        ledger.removeNode(name);
        repair(name);
    }

    void upsertPod(Pod pod) {
        observe(pod);
    }

    void deletePod(String uid) {
        forgetPod(uid);
        pass.roomFreed(books.now());
    }

    private void forgetPod(String uid) {
        ledger.holds().forget(uid); // room held for it (a preemption's) is free again
        Pod old = books.removePod(uid);
        String how = books.binds().inFlight(uid) ? "was deleted while its Binding was in flight" : "was deleted";
        PodRecord r = books.removeAllocation(uid, how); // settles the record's gang
        books.binds().forget(uid); // a BOUND or EXPECTED entry: nothing left to confirm
        if (old != null && old.gang() != null) {
            Gang g = books.gang(old.gang());
            if (g != null) {
                g.removeMember(uid);
                books.binds().fail(uid, "pod " + old.id() + " was deleted"); // its slot is settled below
                if (g.running()) {
                    books.releaseSlotOf(g.key(), uid); // the gang runs: nothing will wait for this room
                    if (r == null || !g.key().equals(r.gang())) {
                        books.settle(g, "pod " + old.id() + " " + how); // it held nothing here: a Binding in flight was lost
                    }
                } else if (g.memberCount() == 0) {
                    // the last member is gone (the job was deleted): nobody will use the room before the deadline
                    Refusal why = Refusal.note("every member of gang " + g.key() + " was deleted");
                    barrier.dropReservation(g, why);
                    if (g.spec() != null && (g.state() == GangState.RESERVED || g.state() == GangState.ADMITTED)) {
                        books.state(g, GangState.WAITING, why); // never "reserved" without a reservation
                    }
                } else {
                    books.vacateSlotOf(g.key(), uid);  // still assembling: the room waits for a replacement
                }
                books.forgetIfDone(g);
            }
        }
    }

    void upsertPodGroup(PodGroupSpec podGroup) {
        Gang g = books.gangOf(podGroup.key());
        int minMemberBefore = g.minMember();
        books.outbox().emit(g.podGroupSeen(podGroup));
        if (!g.running() && g.bound() >= g.minMember() && g.bound() > 0) {
            books.outbox().emit(g.runs()); // e.g. rebuilt after a restart: the gang already runs
        }
        books.settle(g, g.minMember() > minMemberBefore ? "podgroup " + g.key() + " now asks minMember " + g.minMember() : null);
        barrier.openIfReady(g);
        pass.joined(g);
        held.admitHeld(g, books.now()); // its members' binds may have waited for the PodGroup
    }

    void deletePodGroup(GangKey key) {
        Gang g = books.gang(key);
        if (g == null || g.spec() == null) {
            return;
        }
        barrier.dropReservation(g, Refusal.note("podgroup " + key + " was deleted"));
        books.outbox().emit(g.podGroupDeleted());
        books.forgetIfDone(g);
        pass.roomFreed(books.now());
    }

    void upsertQueue(QueueSpec queue) {
        books.putQueue(queue);
        pass.roomFreed(books.now());
    }

    void deleteQueue(String name) {
        books.removeQueue(name);
    }

    private void observe(Pod pod) {
        Pod old = books.putPod(pod);
        if (pod.phase().isTerminal()) {
            books.removePod(pod.uid());
        }
        if (old != null && old.gang() != null && !old.gang().equals(pod.gang())) {
            Gang og = books.gang(old.gang());
            if (og != null) {
                og.removeMember(pod.uid());
                books.settle(og, "pod " + pod.id() + " left the gang");
                books.forgetIfDone(og);
            }
        }
        Gang g = null;
        if (pod.gang() != null) {
            g = books.gangOf(pod.gang());
            if (pod.phase().isTerminal()) {
                g.removeMember(pod.uid());
            } else {
                g.putMember(pod);
                if (g.state() == GangState.RESERVED && g.why().cause() == Refusal.Cause.TASK_MEMBERS_MISSING && g.tasksShort().isEmpty()) {
                    // the task it waited for has its pods now: the reservation's note says so, and the condition goes
                    books.state(g, GangState.RESERVED, Refusal.note("pods of every task exist (" + g.memberCount() + "/" + g.minMember()
                            + " pods exist)"));
                }
                if (!pod.isBound()) {
                    pass.joined(g); // a gang that starts waiting counts in the line before its first filter
                }
            }
        }
        PodRecord rec = ledger.pod(pod.uid());
        if (pod.holdsResources()) {
            if (rec == null) {
                String queue = g == null ? "" : g.queue();
                PodRecord fresh = new PodRecord(pod.id(), pod.nodeName(), pod.request(), pod.gang(), queue, false);
                Reservation r = g == null ? null : ledger.reservation(g.key());
                Slot s = r == null ? null : r.slotOf(pod.uid());
                if (s != null && s.node().equals(pod.nodeName())) {
                    ledger.consumeSlot(r, s, fresh);
                } else {
                    if (s != null) {
                        ledger.releaseSlot(r, s);
                    }
                    ledger.putPod(fresh);
                }
                books.allocated(fresh);
                barrier.boundByCluster(pod);
                repair(pod.nodeName());
            } else if (!rec.node().equals(pod.nodeName()) || !rec.request().equals(pod.request())) {
                ledger.removePod(pod.uid());
                books.deallocated(rec);
                PodRecord moved = new PodRecord(pod.id(), pod.nodeName(), pod.request(), rec.gang(), rec.queue(), false);
                ledger.putPod(moved);
                books.allocated(moved);
                repair(pod.nodeName());
            } else if (rec.assumed()) {
                ledger.putPod(rec.confirmed());
            }
        } else if (rec != null && (pod.phase().isTerminal() || !rec.assumed())) {
            if (pod.phase() == PodPhase.SUCCEEDED && g != null && g.key().equals(rec.gang())) {
                g.memberSucceeded(); // it was placed: a fast task that completes does not make the gang short
            }
            books.removeAllocation(pod.uid(), pod.phase().isTerminal() ? "finished (" + pod.phase().wire() + ")" : "no longer holds resources");
            pass.roomFreed(books.now());
        }
        nomination(pod);
        if (g != null) {
            if (!g.running() && g.spec() != null && g.bound() > 0 && g.bound() >= g.minMember()) {
                books.outbox().emit(g.runs());
            } else if (g.running() && g.bound() == 0 && books.binds().count(g.key(), PodBinds.Stage.WAITING) == 0 && ledger.reservation(g.key()) == null
                    && noMemberBound(g)) {
                books.outbox().emit(g.finished()); // a new run assembles anew
            } else if (pod.phase().isTerminal() && rec == null) {
                // it held nothing (a record that left was settled by removeAllocation): a Binding in flight was lost
                books.settle(g, "pod " + pod.id() + " finished (" + pod.phase().wire() + ")");
            }
            books.forgetIfDone(g);
        }
    }

    /**
     * kube-scheduler's preemption freed room for a pending pod and nominated it the node ({@code status.nominatedNodeName}):
     * that room is held for it ({@link PodHolds}) until it binds, goes, or the nomination is withdrawn, so no gang or pod of
     * equal or lower priority takes it meanwhile (one of higher priority may, as in kube-scheduler). A hold of Muster's own
     * preemption is left to its decision.
     */
    private void nomination(Pod pod) {
        PodHolds.Hold h = ledger.holds().of(pod.uid());
        if (h != null && h.source() == PodHolds.Source.MUSTER) {
            return;
        }
        // a gang member's room is its gang's reservation, and a pod Muster is binding holds its record already: neither is held twice
        boolean wanted = pod.nominated() && pod.gang() == null && !pod.isBound() && !pod.terminating() && !pod.phase().isTerminal()
                && books.pod(pod.uid()) != null && ledger.pod(pod.uid()) == null;
        if (wanted && h == null && ledger.holds().gaveWay(pod.uid(), pod.nominatedNodeName())) {
            return; // one of higher priority took its room on that node: not held there again for the same nomination
        }
        PodHolds.Hold want = wanted ? new PodHolds.Hold(pod.uid(), pod.nominatedNodeName(), pod.request(), PodHolds.Source.NOMINATED,
                pod.priority()) : null;
        if (java.util.Objects.equals(h, want)) {
            return;
        }
        if (want != null) {
            ledger.holds().hold(want);
        } else {
            ledger.holds().forget(pod.uid());
            pass.roomFreed(books.now());
        }
    }

    private static boolean noMemberBound(Gang g) {
        for (Pod m : g.members()) {
            if (m.isBound()) {
                return false;
            }
        }
        return true;
    }

    /**
     * After use on {@code node} grew or its allocatable shrank: slots that no longer fit move to another node if
     * they can; a gang whose slot cannot move loses its reservation and is planned again.
     */
    private void repair(String node) {
        repair(node, false);
    }

    /**
     * As {@link #repair(String)}; {@code relabelled}: the node's topology labels changed, so slots of reservations
     * confined to a topology domain that no longer contains the node move too.
     */
    private void repair(String node, boolean relabelled) {
        NodeEntry e = ledger.node(node);
        boolean gone = e == null || !e.known() || !e.schedulable();
        if (e != null && !gone && !e.reservationsBroken() && !relabelled) {
            return;
        }
        for (Reservation r : ledger.reservations()) {
            for (Slot s : new ArrayList<>(r.slots())) {
                NodeEntry now = ledger.node(node);
                boolean outside = relabelled && now != null && !steering.inDomain(r, now);
                boolean stillBroken = now == null || !now.known() || !now.schedulable() || now.reservationsBroken() || outside;
                if (!stillBroken || !s.node().equals(node) || ledger.reservation(r.gang()) != r) {
                    continue;
                }
                if (s.podUid() != null && books.binds().inFlight(s.podUid())) {
                    continue; // being bound right now; the binding will show the truth
                }
                Gang g = books.gang(r.gang());
                String target = steering.relocationTarget(r, node, s.request());
                if (target != null) {
                    if (s.state() == Slot.State.CLAIMED && g != null) {
                        barrier.slotTaken(g, s.podUid(), node);
                        ledger.vacate(s);
                    }
                    ledger.moveSlot(r, s, target);
                } else if (g != null && !g.running()) {
                    Refusal why = Refusal.of(Refusal.Cause.RESERVATION_LOST, "gang " + g.key() + ": reservation lost, node " + node
                            + (outside ? " left the required topology domain " + r.requiredDomain() + " and no node inside it has room"
                            : " was taken by pods muster did not place and no other node has room"));
                    barrier.dropReservation(g, why);
                    books.state(g, GangState.WAITING, why);
                } else {
                    ledger.releaseSlot(r, s);
                }
            }
        }
    }
}
