package dev.muster.core.gang;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import dev.muster.core.queue.QueueAdmission;
import dev.muster.core.resources.Resources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides when Muster lifts its queue-admission gate ({@link QueueGate}) from a gang's members. Runs after every
 * admission pass, on the books the pass left; confined to the core's lock ({@link Books}). The lifts themselves are
 * sent through the {@link GateLifter} after the lock is released ({@link Outbox#later}).
 *
 * <p>A gang is <em>gated by Muster</em> when some member not bound yet carries Muster's gate and no member carries a
 * gate of someone else's. Such a gang waits in line like any other: it counts in its queue's fair share, the pass sets
 * room aside for it, keeps its queue's quota for it and may reserve it, and it may preempt and reclaim. Its gate is
 * lifted, in line order, once
 * <ul>
 *   <li>its queue admits what it still needs (the queue is open, and its capability holds that need beside what the
 *       queue holds, the quota kept for the gang first in line for it and the quota of gangs lifted before), or it is
 *       admitted already (it holds a reservation — room a pass or a preemption took for it — or runs), and</li>
 *   <li>every {@link GateHold} answers null.</li>
 * </ul>
 * Lifting commits the gang's need against its queue ({@link GateBooks}). Members created after the lift (a gang whose
 * pods come late, a replacement member) are lifted as soon as they are seen. A gang with a gate Muster did not add is
 * never lifted. A pod whose lift was sent is not sent again for {@link #RESEND_AFTER} unless the cluster shows it
 * ungated; the lift is idempotent, so a new leader simply lifts whatever it sees still gated.
 *
 * <p>Each sweep also tells the gated pods what their gang waits for ({@link GateEvents}: {@code waiting for queue
 * research: …}, or a hold's reason), only when that changes and paced per pod ({@link GateTold}), and each pod that its
 * lift reached that its gate was lifted. Like the lifts, this happens only while the lifter is ready (this process
 * leads), and is sent after the lock is released.
 */
public final class GateLifts {
    /** Causes of {@link GateBooks#gatedByCause()}. */
    public static final String QUEUE = "queue";
    public static final String HOLD = "hold";
    public static final String FOREIGN_GATE = "foreign-gate";
    /** How long a lift that was sent is given to show in the cluster before it is sent again. */
    static final Duration RESEND_AFTER = Duration.ofSeconds(5);

    private final Books books;
    private final WaitingLine line;
    private final Duration defaultDeadline;
    private final GateTold told = new GateTold();

    public GateLifts(Books books, WaitingLine line, Duration defaultDeadline) {
        this.books = books;
        this.line = line;
        this.defaultDeadline = defaultDeadline;
    }

    /** How a gang's members are gated. */
    enum Gating {
        /** No member waiting to be bound carries a gate of Muster's. */
        NONE,
        /** Muster's gate alone: Muster lifts it. */
        MUSTER,
        /** Some member carries a gate Muster did not add: Muster lifts nothing. */
        FOREIGN
    }

    static Gating gatingOf(Gang g) {
        boolean musters = false;
        for (Pod m : g.members()) {
            if (m.isBound() || m.terminating()) {
                continue;
            }
            if (QueueGate.foreign(m)) {
                return Gating.FOREIGN;
            }
            musters |= QueueGate.carries(m);
        }
        return musters ? Gating.MUSTER : Gating.NONE;
    }

    /**
     * The scheduling gates Muster does not lift on members of {@code g} waiting to be bound (any gate but Muster's own
     * when the gate is on, every gate when it is off), sorted; empty when none. Such members cannot reach kube-scheduler
     * until someone else removes those gates, so the gang takes no room meanwhile ({@link AdmissionPass}).
     */
    public static java.util.SortedSet<String> othersGates(Books books, Gang g) {
        java.util.SortedSet<String> out = new java.util.TreeSet<>();
        boolean lifts = books.queueGate().enabled();
        for (Pod m : g.members()) {
            if (m.isBound() || m.terminating()) {
                continue;
            }
            for (String gate : m.constraints().schedulingGates()) {
                if (!lifts || !QueueGate.NAME.equals(gate)) {
                    out.add(gate);
                }
            }
        }
        return out;
    }

    /** Whether {@code g} is gated by Muster alone and Muster lifts its gate (so its gated members will reach kube-scheduler). */
    public static boolean gatedByMuster(Books books, Gang g) {
        return books.queueGate().enabled() && gatingOf(g) == Gating.MUSTER;
    }

    /** One sweep at {@code now} (see the class comment). */
    public void sweep(long now) {
        QueueGate gate = books.queueGate();
        GateBooks gates = books.gates();
        gates.prune(now, books);
        java.util.function.Predicate<String> ungated = uid -> {
            Pod p = books.pod(uid);
            return p == null || !QueueGate.carries(p) || p.isBound() || p.terminating();
        };
        gates.forgetSent(ungated);
        told.forget(ungated);
        if (!gate.enabled() || !gate.lifter().ready()) {
            gates.gatedByCause(Map.of());
            return;
        }
        Map<String, Integer> counts = new HashMap<>();
        List<Gang> waiting = new ArrayList<>();
        for (Gang g : books.gangs()) {
            Gating gating = gatingOf(g);
            if (gating == Gating.FOREIGN) {
                counts.merge(FOREIGN_GATE, 1, Integer::sum);
            } else if (gating == Gating.MUSTER) {
                if (books.admitted(g) || gates.lifted(g.key())) {
                    liftUnlessHeld(g, now, counts);
                } else if (line.waiting(g, now)) {
                    waiting.add(g);
                } else {
                    counts.merge(QUEUE, 1, Integer::sum); // no PodGroup yet, or backing off
                }
            }
        }
        LineOrder order = line.orderOf(waiting);
        while (!order.isEmpty()) {
            Gang g = order.poll();
            Resources need = line.needOf(g);
            if (books.queueVerdict(g.queue(), need, g.key()) instanceof QueueAdmission.Verdict.Refused refused) {
                counts.merge(QUEUE, 1, Integer::sum);
                tell(g, "waiting for queue " + g.queue() + ": " + refused.why().text(), now);
            } else if (liftUnlessHeld(g, now, counts)) {
                gates.commit(g.key(), g.queue(), need, now + deadlineOf(g).toNanos());
            }
        }
        gates.gatedByCause(counts);
    }

    /** Lifts the gang's gated members unless a hold keeps them; returns whether it lifted. */
    private boolean liftUnlessHeld(Gang g, long now, Map<String, Integer> counts) {
        QueueGate gate = books.queueGate();
        long nowMillis = now / 1_000_000; // the core's monotonic clock, in milliseconds
        Map<String, String> annotations = new LinkedHashMap<>();
        for (GateHold hold : gate.holds()) {
            String why = hold.reason(g, nowMillis);
            if (why != null) {
                counts.merge(HOLD, 1, Integer::sum);
                tell(g, why, now);
                return false;
            }
        }
        for (GateHold hold : gate.holds()) {
            annotations.putAll(hold.annotations(g));
        }
        Map<String, String> add = Map.copyOf(annotations);
        GateBooks gates = books.gates();
        GangKey key = g.key();
        String note = liftNote(g, add);
        for (Pod m : g.members()) {
            if (QueueGate.carries(m) && !m.isBound() && !m.terminating() && gates.maySend(m.uid(), now, RESEND_AFTER.toNanos())) {
                gates.sent(m.uid(), now);
                books.outbox().later(() -> gate.lifter().lift(m.id(), add).thenAccept(why -> {
                    if (why == null) {
                        gate.events().lifted(key, m.id(), note);
                    }
                }));
            }
        }
        return true;
    }

    /** Tells the gated members of {@code g} that have not heard it (paced, {@link GateTold}) that the gang waits for {@code reason}. */
    private void tell(Gang g, String reason, long now) {
        String note = "gang " + g.key() + ": " + reason;
        List<PodId> pods = told.toTell(g, note, now);
        if (!pods.isEmpty()) {
            GateEvents events = books.queueGate().events();
            GangKey key = g.key();
            books.outbox().later(() -> events.waiting(key, pods, note));
        }
    }

    /** What a lifted pod is told: its queue admitted its gang (and, after a scale-up, which request's nodes it takes). */
    private static String liftNote(Gang g, Map<String, String> annotations) {
        StringBuilder b = new StringBuilder("gang ").append(g.key()).append(": admitted by queue ").append(g.queue());
        annotations.entrySet().stream().filter(e -> e.getKey().endsWith("/consume-provisioning-request")).findFirst()
                .ifPresent(e -> b.append(", on the nodes of ProvisioningRequest ").append(g.key().namespace()).append('/').append(e.getValue()));
        return b.append("; scheduling gate ").append(QueueGate.NAME).append(" lifted").toString();
    }

    private Duration deadlineOf(Gang g) {
        return g.spec() != null && g.spec().deadline() != null ? g.spec().deadline() : defaultDeadline;
    }
}
