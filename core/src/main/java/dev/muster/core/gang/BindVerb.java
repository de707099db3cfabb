package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodId;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * The bind verb: where a pod's bind starts. A single pod (or a member of a gang that runs) is bound at once
 * ({@link Bindings}); a member of a reserved gang joins its barrier ({@link BindBarrier}); a member whose gang is not
 * admitted — or whose slot Muster cannot claim on the node kube-scheduler chose — is held ({@link HeldBinds}). The
 * returned future is completed through the outbox, never under the core's lock. Confined to the core's lock.
 */
public final class BindVerb {
    private final Books books;
    private final Ledger ledger;
    private final PodBinds binds;
    private final Bindings bindings;
    private final BindBarrier barrier;
    private final HeldBinds held;
    private final Assumptions assumptions;
    private final Duration admissionHold;

    public BindVerb(Books books, Bindings bindings, BindBarrier barrier, HeldBinds held, Assumptions assumptions, Duration admissionHold) {
        this.books = books;
        this.ledger = books.ledger();
        this.binds = books.binds();
        this.bindings = bindings;
        this.barrier = barrier;
        this.held = held;
        this.assumptions = assumptions;
        this.admissionHold = admissionHold;
    }

    /** Binds {@code podId} to {@code node}; see {@link dev.muster.core.scheduler.GangScheduler#bind}. */
    public CompletableFuture<BindResult> bind(PodId podId, String node, long now) {
        CompletableFuture<BindResult> result = new CompletableFuture<>();
        Pod p = books.pod(podId.uid());
        if (p == null) {
            result.complete(BindResult.failed("pod " + podId + " (uid " + podId.uid() + ") is unknown to muster: it was never filtered or observed"));
            return result;
        }
        // filter assumed kube-scheduler would bind it itself, yet it asks Muster to (a configuration whose one extender
        // binds every pod): bind it for real, never answer "bound" for a record no Binding made
        assumptions.forgetExpected(p.uid(), "is bound through the bind verb after all");
        PodRecord existing = ledger.pod(p.uid());
        if (existing != null) {
            result.complete(existing.node().equals(node) ? BindResult.BOUND
                    : BindResult.failed("pod " + podId + " is already bound to " + existing.node()));
            return result;
        }
        if (binds.inFlight(p.uid())) {
            result.complete(BindResult.failed("pod " + podId + " is being bound already"));
            return result;
        }
        if (p.gang() == null) {
            bindings.single(p, node, "", result);
            return result;
        }
        Gang g = books.gangOf(p.gang());
        if (g.spec() == null || !books.admitted(g) || !barrier.join(g, p, node, result)) {
            held.hold(g, p, node, result, now + admissionHold.toNanos(), now);
        }
        return result;
    }

    /** Withdraws a waiting or held bind (its caller went away): the pod's slot is vacated for another try. */
    public void cancel(PodId podId) {
        Pod p = books.pod(podId.uid());
        if (p != null) {
            barrier.cancel(p);
        }
    }
}
