package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.ledger.Reservation;
import dev.muster.core.ledger.Slot;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * Binding POSTs: the {@link Binder} is called once the core's lock is released (through the {@link Outbox}), and its
 * answer is recorded under the lock ({@code underLock}). A pod's bind is BINDING ({@link PodBinds}) from the moment
 * the POST is queued until the answer is recorded, and its caller always learns an outcome: a Binder that throws
 * instead of answering, or returns no answer, is a failed Binding; a failure while the answer is recorded is logged
 * and the caller is told so.
 *
 * <p>A gang member's Binding consumes its claimed slot when it succeeds; one that fails (or succeeds for a pod deleted
 * meanwhile) releases the slot and settles the gang ({@link Books#settle}). A single pod's room is recorded (assumed)
 * before its POST and given back if the POST fails. Confined to the core's lock.
 */
public final class Bindings {
    private static final System.Logger LOG = System.getLogger(Bindings.class.getName());

    private final Books books;
    private final Ledger ledger;
    private final PodBinds binds;
    private final Binder binder;
    private final Consumer<Runnable> underLock;

    /** @param underLock runs an action under the core's lock (answers of the Binder arrive on other threads) */
    public Bindings(Books books, Binder binder, Consumer<Runnable> underLock) {
        this.books = books;
        this.ledger = books.ledger();
        this.binds = books.binds();
        this.binder = binder;
        this.underLock = underLock;
    }

    /** A gang member with a claimed slot (or of a gang that runs): POST its Binding; the slot is consumed when it succeeds. */
    void member(Gang g, Pod p, String node, CompletableFuture<BindResult> caller) {
        binds.binding(g.key(), p.id(), node, caller);
        post(p.id(), node, caller, err -> answeredMember(g.key(), p, node, err));
    }

    /**
     * POSTs the Bindings of members the barrier just took out ({@link PodBinds#open}, already BINDING), each with
     * its caller.
     */
    void opened(Gang g, Pod p, String node, CompletableFuture<BindResult> caller) {
        post(p.id(), node, caller, err -> answeredMember(g.key(), p, node, err));
    }

    /** A single pod (or a member of a running gang without a slot): its room is recorded now, then its Binding POSTed. */
    void single(Pod p, String node, String queue, CompletableFuture<BindResult> caller) {
        NodeEntry e = ledger.node(node);
        String why = e == null ? "node " + node + " is not known to muster yet"
                : ledger.holds().acceptsHolder(e, p.uid(), p.request(), p.priority()) ? null : e.whyNot(p.request());
        if (why != null) {
            books.outbox().complete(caller, BindResult.failed("node " + node + " can no longer take pod " + p.id() + ": " + why));
            return;
        }
        PodRecord record = new PodRecord(p.id(), node, p.request(), p.gang(), queue, true);
        ledger.putPod(record); // ends the room held for it, as when kube-scheduler binds it
        ledger.holds().giveWay(node, p.priority()); // nominations of lower priority whose room it took
        books.allocated(record);
        binds.binding(p.gang(), p.id(), node, caller);
        post(p.id(), node, caller, err -> answeredSingle(p, err));
    }

    private void answeredSingle(Pod p, Throwable err) {
        PodRecord r = ledger.pod(p.uid());
        boolean assumed = r != null && r.assumed();
        if (!binds.answered(p.uid(), err == null ? BindResult.BOUND : BindResult.failed(messageOf(err)), err == null && assumed)) {
            return;
        }
        if (err != null && assumed) {
            books.removeAllocation(p.uid(), "failed to bind (" + messageOf(err) + ")");
        }
    }

    private void answeredMember(GangKey key, Pod p, String node, Throwable err) {
        if (err != null) {
            if (binds.answered(p.uid(), BindResult.failed(messageOf(err)), false)) {
                memberLost(key, p, "failed to bind (" + messageOf(err) + ")");
            }
            return;
        }
        if (ledger.pod(p.uid()) != null) {
            binds.answered(p.uid(), BindResult.BOUND, ledger.pod(p.uid()).assumed()); // the cluster showed it bound first
            return;
        }
        if (!books.hasPod(p.uid())) {
            // deleted while its Binding was in flight: recording it now would hold phantom capacity
            if (binds.answered(p.uid(), BindResult.BOUND, false)) {
                memberLost(key, p, "was deleted while its Binding was in flight");
            }
            return;
        }
        if (!binds.answered(p.uid(), BindResult.BOUND, true)) {
            return;
        }
        Gang g = books.gang(key);
        String queue = g == null ? "" : g.queue();
        PodRecord record = new PodRecord(p.id(), node, p.request(), key, queue, true);
        Reservation r = ledger.reservation(key);
        Slot s = r == null ? null : r.slotOf(p.uid());
        if (s != null) {
            ledger.consumeSlot(r, s, record);
        } else {
            ledger.putPod(record);
        }
        books.allocated(record);
    }

    /**
     * A member of a gang whose barrier opened will not be bound: its Binding POST failed (typically: the pod was
     * deleted meanwhile), or it succeeded for a pod deleted while it was in flight. Its room is released at once;
     * if the gang can no longer reach minMember with what is bound and in flight, it is reported short — never
     * BOUND — and a replacement member joins the running members later.
     */
    private void memberLost(GangKey key, Pod p, String what) {
        books.releaseSlotOf(key, p.uid());
        Gang g = books.gang(key);
        if (g != null) {
            books.settle(g, "pod " + p.id() + " " + what);
        }
    }

    /**
     * Queues the POST: the Binder runs after the lock is released, and its answer — or what it threw, or its lack of
     * one — is recorded under the lock by {@code answer}. If recording throws, the caller is still answered.
     */
    private void post(PodId pod, String node, CompletableFuture<BindResult> caller, Consumer<Throwable> answer) {
        books.outbox().later(() -> {
            CompletionStage<Void> stage;
            try {
                stage = binder.bind(pod, node);
                if (stage == null) {
                    stage = CompletableFuture.failedFuture(new IllegalStateException("the binder gave no answer"));
                }
            } catch (Throwable t) { // a Binder that throws instead of answering: its Binding failed
                LOG.log(System.Logger.Level.ERROR, "binder threw for pod " + pod + " on " + node, t);
                stage = CompletableFuture.failedFuture(t);
            }
            stage.whenComplete((ok, err) -> {
                try {
                    underLock.accept(() -> answer.accept(err));
                } catch (Throwable t) {
                    LOG.log(System.Logger.Level.ERROR, "recording the Binding answer of pod " + pod + " failed", t);
                    if (caller != null) {
                        caller.complete(BindResult.failed("muster could not record the answer to the Binding of pod " + pod
                                + ": " + messageOf(t)));
                    }
                }
            });
        });
    }

    static String messageOf(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
    }
}
