package dev.muster.core.gang;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.PodRecord;
import dev.muster.core.model.Pod;
import java.time.Duration;

/**
 * Room Muster records ahead of the cluster for a single pod kube-scheduler binds itself (it does not ask Muster's bind
 * verb): the pod's {@link PodBinds.Stage#EXPECTED} record, as kube-scheduler's cache assumes the pod. Only these
 * records expire ({@link #EXPECT_WITHIN}): kube-scheduler may never have bound the pod. A record made by a Binding
 * that succeeded ({@link PodBinds.Stage#BOUND}) never expires: the pod runs there, however slow the informer is.
 * Also sweeps BOUND and EXPECTED entries the cluster has confirmed. Confined to the core's lock.
 */
public final class Assumptions {
    /** How long kube-scheduler may take to bind a pod Muster expects it to bind before the room is given back. */
    public static final Duration EXPECT_WITHIN = Duration.ofSeconds(30);

    private static final System.Logger LOG = System.getLogger(Assumptions.class.getName());

    private final Books books;
    private final Ledger ledger;
    private final PodBinds binds;

    public Assumptions(Books books) {
        this.books = books;
        this.ledger = books.ledger();
        this.binds = books.binds();
    }

    /**
     * kube-scheduler binds {@code p}, a single pod, itself, and Muster's filter left it one node: hold the pod's room
     * there as an assumed record, so the next decisions see it taken before the cluster shows it bound. Confirmed when
     * the cluster shows the pod on that node (moved when on another); given back after {@link #EXPECT_WITHIN} if the
     * cluster never does, or at once when the pod is filtered again ({@link #forgetExpected}).
     */
    public void expectBind(Pod p, String node) {
        if (ledger.node(node) == null || ledger.pod(p.uid()) != null || binds.stageOf(p.uid()) != null) {
            return;
        }
        PodRecord record = new PodRecord(p.id(), node, p.request(), null, "", true);
        ledger.putPod(record);
        books.allocated(record);
        binds.expect(p.id(), node, books.now() + EXPECT_WITHIN.toNanos());
    }

    /**
     * The pod is filtered again, or asks Muster's bind verb after all: kube-scheduler did not bind it where
     * {@link #expectBind} assumed, so the assumed room is given back before the new decision.
     */
    public void forgetExpected(String uid, String why) {
        if (binds.stageOf(uid) != PodBinds.Stage.EXPECTED) {
            return; // the usual case, a pod filtered for the first time: no ledger lookup
        }
        binds.forget(uid);
        PodRecord r = ledger.pod(uid);
        if (r != null && r.assumed()) {
            books.removeAllocation(uid, why);
        }
    }

    /**
     * Gives back the room of pods kube-scheduler was expected to bind and the cluster has not shown bound within
     * {@link #EXPECT_WITHIN}; forgets records the cluster confirmed.
     */
    public void expireDue(long now) {
        for (PodBinds.Bind b : binds.sweep(now, uid -> {
            PodRecord r = ledger.pod(uid);
            return r == null || !r.assumed();
        })) {
            PodRecord r = ledger.pod(b.pod().uid());
            books.removeAllocation(b.pod().uid(), "was expected to be bound by kube-scheduler but never shown bound by the cluster");
            LOG.log(System.Logger.Level.WARNING, "pod {0} was expected to be bound by kube-scheduler to {1} but the cluster has not"
                    + " shown it bound within {2}s; its room is given back", b.pod(), r == null ? b.node() : r.node(), EXPECT_WITHIN.toSeconds());
        }
    }
}
