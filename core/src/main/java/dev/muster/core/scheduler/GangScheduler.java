package dev.muster.core.scheduler;

import dev.muster.core.gang.Assumptions;
import dev.muster.core.gang.BindBarrier;
import dev.muster.core.gang.BindVerb;
import dev.muster.core.gang.Bindings;
import dev.muster.core.gang.HeldBinds;
import dev.muster.core.gang.PodBinds;
import dev.muster.core.gang.BindResult;
import dev.muster.core.gang.Binder;
import dev.muster.core.gang.Books;
import dev.muster.core.gang.AdmissionHold;
import dev.muster.core.gang.AdmissionPass;
import dev.muster.core.gang.GangAdmission;
import dev.muster.core.gang.GateLifts;
import dev.muster.core.gang.QueueGate;
import dev.muster.core.gang.WaitingLine;
import dev.muster.core.gang.GangExpiry;
import dev.muster.core.gang.GangPlanner;
import dev.muster.core.gang.Outbox;
import dev.muster.core.ledger.LedgerSnapshot;
import dev.muster.core.ledger.SlotSteering;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.GangState;
import dev.muster.core.model.Node;
import dev.muster.core.model.Pod;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.preempt.DisruptionBudgets;
import dev.muster.core.preempt.Evictor;
import dev.muster.core.preempt.PreemptionAdvice;
import dev.muster.core.preempt.PreemptionStats;
import dev.muster.core.preempt.Preemptions;
import dev.muster.core.stream.AllocationJournal;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The scheduling core's facade: the one implementation behind the HTTP and gRPC extender verbs, fed by cluster
 * sync. It decides filter, prioritize, bind and preempt for single pods and gangs, and reports every allocation
 * and gang state change to the {@link AllocationJournal}.
 *
 * <p>The work is done by lock-confined parts, each owning one thing: {@link Filtering} (filter and prioritize),
 * {@link GangAdmission} (plan + reserve a whole gang), {@link SlotSteering} (which slot a member uses),
 * {@link BindVerb} (where a bind starts), {@link BindBarrier} (a gang's barrier and every way a waiting bind leaves),
 * {@link HeldBinds} (binds held while Muster retries), {@link Bindings} (Binding POSTs and their answers),
 * {@link Assumptions} (pods kube-scheduler is expected to bind), {@link GangExpiry} (deadlines and the tick),
 * {@link ClusterIntake} (what the cluster reports, and repair), {@link PreemptVerb} (the preempt verb's policy),
 * {@link Housekeeping} (the tick's order, and leadership lost) and {@link SchedulerViews} (stats and views). They share
 * the {@link Books}; a pod's bind state has one owner, {@link PodBinds}, which draws its lifecycle. {@link ParkedPods}
 * remembers the pods the filter refused outright, and {@link ClusterFeed} has the {@link PodWaker} make kube-scheduler
 * try them again when a Queue or PodGroup is edited or reservations give room back (changes kube-scheduler never hears
 * of).
 *
 * <p><b>Thread-safety.</b> This class is thread-safe. One lock ({@link CoreLock}) guards the books and every part:
 * every public method runs under it. Futures of binds are completed, the {@link Binder} is called and the journal's
 * readers are woken only after the lock is released (the {@link Outbox}), so no foreign code ever runs under it; if
 * the lock is ever re-entered, only the outermost holder runs those actions. Journal events are recorded under the
 * lock (lock order: this lock, then the journal's), which makes the stream's order the order in which state changed.
 * Reads return immutable copies. {@link #isSynced()} reads a volatile flag without the lock.
 *
 * <p><b>Whole or not at all.</b> An operation that throws still has the actions it queued run (a Binding POST for a
 * bind it marked in flight, a future it completed), so the books never hold work nobody finishes; the bind parts
 * move a pod out of one stage only as it enters the next, so a failure half-way leaves each pod in exactly one stage.
 * The tick's steps run each even when one fails ({@link #expireDue}).
 *
 * <p><b>Gang lifecycle</b> (see {@link GangState}): the first filter of a member plans all members the gang still
 * needs and, if the queue admits and everything required fits, reserves slots with a deadline. Filter steers
 * members to slot nodes; bind claims a slot and waits at the barrier until {@code minMember} members are bound or
 * waiting, then every waiting member is bound. The deadline passing first fails the waiting binds, releases the
 * reservation and backs the gang off. Slots invalidated by pods other schedulers place move if they can;
 * otherwise the reservation is released and the gang is planned again.
 */
public final class GangScheduler implements ClusterSink {
    private final SchedulerConfig config;
    private final LongSupplier nanoTime;
    private final CoreLock lock;
    // ---- everything below is guarded by lock ----
    private final Outbox outbox;
    private final Books books;
    private final Filtering filtering;
    private final BindVerb bindVerb;
    private final PreemptVerb preemptVerb;
    private final Assumptions assumptions;
    private final VerbGuard guard;
    private final Preemptions preemptions;
    private final ParkedPods parked = new ParkedPods();
    private final PodArrivals arrivals = new PodArrivals();
    private final ClusterFeed feed;
    private final Housekeeping housekeeping;
    private final SchedulerViews views;
    private final GangAdmission admission;
    private final WaitingLine line;
    private final ProvisioningGate provisionGate = new ProvisioningGate(); // all-or-nothing scale-up, off until turned on
    // ---- written under lock, read without it ----
    private volatile boolean synced;

    public GangScheduler(SchedulerConfig config, Binder binder, AllocationJournal journal, LongSupplier nanoTime) {
        this(config, binder, Evictor.NONE, DisruptionBudgets.NONE, journal, nanoTime, PodWaker.NONE);
    }

    /** A scheduler that never preempts, with {@code waker} (see the full constructor). */
    public GangScheduler(SchedulerConfig config, Binder binder, AllocationJournal journal, LongSupplier nanoTime, PodWaker waker) {
        this(config, binder, Evictor.NONE, DisruptionBudgets.NONE, journal, nanoTime, waker);
    }

    /**
     * A scheduler that may take capacity back: victims are evicted through {@code evictor} and chosen only where
     * {@code budgets} allow ({@link Evictor#NONE}: it never preempts, whatever {@link SchedulerConfig#preemption()} says).
     */
    public GangScheduler(SchedulerConfig config, Binder binder, Evictor evictor, DisruptionBudgets budgets, AllocationJournal journal,
                         LongSupplier nanoTime) {
        this(config, binder, evictor, budgets, journal, nanoTime, PodWaker.NONE);
    }

    /**
     * @param waker asked (after the lock is released) to have kube-scheduler try again pods the filter refused, when the
     *              books change in a way that may admit them ({@link ParkedPods})
     */
    public GangScheduler(SchedulerConfig config, Binder binder, Evictor evictor, DisruptionBudgets budgets, AllocationJournal journal,
                         LongSupplier nanoTime, PodWaker waker) {
        this.config = config;
        this.nanoTime = nanoTime;
        this.outbox = new Outbox(journal);
        QueueGate gate = config.queueGate();
        this.books = new Books(outbox, nanoTime, gate.enabled() ? gate.withHold(provisionGate) : gate);
        SlotSteering steering = new SlotSteering(books.ledger(), config.policy(), config.topologyLevels());
        WaitingLine line = new WaitingLine(books, config.setAsideAfter());
        GangAdmission admission = new GangAdmission(books, new GangPlanner(config.policy(), config.topologyLevels()), config.gangDeadline(), line);
        Bindings bindings = new Bindings(books, binder, this::run);
        BindBarrier barrier = new BindBarrier(books, steering, bindings);
        AdmissionHold hold = new AdmissionHold(books, evictor != Evictor.NONE); // lifted once the preemption records are read
        HeldBinds held = new HeldBinds(books, admission, barrier, hold);
        this.assumptions = new Assumptions(books);
        this.bindVerb = new BindVerb(books, bindings, barrier, held, assumptions, config.admissionHold());
        AdmissionPass pass = new AdmissionPass(books, line, held, hold);
        this.preemptions = new Preemptions(books, admission, line, barrier, config.preemption(), config.gangDeadline(),
                config.schedulerName(), evictor, budgets, this::run, () -> synced, hold);
        GangExpiry expiry = new GangExpiry(books, barrier, held, assumptions, pass, config.backoff());
        this.filtering = new Filtering(books, barrier, held, steering, admission, config.policy(), config.pickNode());
        ClusterIntake intake = new ClusterIntake(books, barrier, held, steering, pass);
        this.guard = new VerbGuard(books, config.schedulerName(), hold, () -> synced, () -> preemptions.handOver(true));
        this.feed = new ClusterFeed(books, outbox, intake, arrivals, guard, parked, waker);
        this.views = new SchedulerViews(books, line);
        this.admission = admission;
        this.line = line;
        this.preemptVerb = new PreemptVerb(books, preemptions);
        this.housekeeping = new Housekeeping(books, barrier, expiry, new GateLifts(books, line, config.gangDeadline()), preemptions);
        this.lock = new CoreLock(nanoTime, feed::wakeWhereRoomWasFreed, outbox::drain);
    }

    public SchedulerConfig config() {
        return config;
    }

    // ---- verbs -----------------------------------------------------------------------------------------
    /**
     * Which of {@code candidates} (the nodes that passed kube-scheduler's own filters) can take {@code pod}, for a pod
     * without soft preferences. For a gang member this may plan and reserve the whole gang.
     */
    public FilterResult filter(Pod pod, List<String> candidates) {
        return filter(pod, candidates, false);
    }

    /**
     * Which of {@code candidates} (the nodes that passed kube-scheduler's own filters) can take {@code pod}. For a
     * gang member this may plan and reserve the whole gang. A gang member passes only on its slot's node; a single
     * pod only on the node Muster picks ({@link SchedulerConfig#pickNode}) unless {@code softPreferences} — the pod
     * has preferences kube-scheduler's own score plugins weigh — then on every node that fits. A candidate that is
     * in none of the result's lists fits but was passed over for the picked node.
     *
     * @throws VerbRefusedException when the cluster has not shown {@code pod} (by uid), or shows it bound, being deleted
     *                              or of another scheduler: nothing changed ({@link VerbGuard})
     */
    public FilterResult filter(Pod pod, List<String> candidates, boolean softPreferences) {
        return filter(pod, candidates, softPreferences, false);
    }

    /**
     * {@link #filter(Pod, List, boolean)}, saying who binds the pod. {@code boundByKubeScheduler}: kube-scheduler binds
     * this pod itself, without Muster's bind verb (a pod without the gang marker where kube-scheduler binds through
     * Muster only marked pods); a single pod left exactly one node is then assumed there at once
     * ({@link Assumptions#expectBind}), as the bind verb would have recorded it.
     */
    public FilterResult filter(Pod pod, List<String> candidates, boolean softPreferences, boolean boundByKubeScheduler) {
        return locked(() -> {
            long now = nanoTime.getAsLong();
            Pod p = guard.filterable(pod); // the cluster's pod, real and pending, of this profile; else refused, nothing changed
            boolean assume = boundByKubeScheduler && p.gang() == null;
            if (assume) {
                assumptions.forgetExpected(p.uid(), "was filtered again: kube-scheduler did not bind it where expected");
            }
            NodeConstraintCheck.Split split = NodeConstraintCheck.split(p, candidates, books.ledger());
            books.offered().offered(p, split.admitted());
            Filtering.Decision d = filtering.decide(p, split.admitted(), softPreferences, now);
            d.unresolvable().putAll(split.excluded()); // its own constraints exclude these, whoever sent them
            FilterResult r = d.result();
            if (assume && r.feasible().size() == 1) {
                assumptions.expectBind(p, r.feasible().getFirst());
            }
            guard.filtered(p.uid(), r.feasible());
            if (!r.feasible().isEmpty() || p.hasMembershipConflict()) {
                parked.forget(p.uid()); // passed, or refused until the pod itself is edited (a pod event kube-scheduler acts on)
            } else {
                parked.refused(p.id(), p.gang(), d.refusingQueue());
            }
            return r;
        });
    }

    /**
     * Scores 0..10 for {@code candidates}, {@code scores[i]} for {@code candidates.get(i)} (one array, not an object per
     * node: at 5,000 nodes the answer is on kube-scheduler's path for every pod): a gang member's slot nodes 10, others by
     * the scoring policy. Optional: filter
     * already passes a gang member only on the node of its slot, so a kube-scheduler configured without the prioritize
     * verb (the chart's default; its own NodeResourcesFit scores single pods) places every pod just as well.
     */
    public int[] prioritize(Pod pod, List<String> candidates) {
        return locked(() -> filtering.scores(books.pod(pod.uid()) != null ? books.pod(pod.uid()) : pod, candidates));
    }

    /**
     * Binds {@code pod} to {@code node}. A single pod (or a member of a gang that already runs) is bound at once;
     * a gang member waits at the barrier. The future completes when the pod is bound or the bind failed; it is
     * never completed while this scheduler's lock is held. A repeated bind of the same pod replaces the earlier
     * waiter instead of counting twice. Only a pod the cluster shows pending, of this profile and not being deleted, onto
     * a node its last filter passed (or a slot of its gang), is bound; any other bind fails at once saying why, and
     * changes nothing ({@link VerbGuard}).
     */
    public CompletableFuture<BindResult> bind(PodId podId, String node) {
        return locked(() -> {
            String why = guard.whyNotBindable(podId, node);
            if (why != null) {
                return CompletableFuture.completedFuture(BindResult.failed(why)); // nothing changed
            }
            return bindVerb.bind(podId, node, nanoTime.getAsLong());
        });
    }

    /** For a filter refused for a reason that ends by itself: see {@link VerbGuard#whenFilterable}; wait without the lock. */
    public CompletableFuture<Boolean> whenFilterable(VerbRefusedException.Cause cause, String uid, java.time.Duration within) {
        return locked(() -> guard.whenFilterable(cause, uid, within, arrivals));
    }

    /** Filters waiting now for their pod to be shown ({@link #whenFilterable}); lock-free. */
    public int podsAwaited() {
        return arrivals.waiting();
    }

    /** Withdraws a waiting bind (its caller went away): the pod's slot is vacated for another try. */
    public void cancelBind(PodId podId) {
        run(() -> bindVerb.cancel(podId));
    }

    /**
     * Filters kube-scheduler's preemption candidates (its DefaultPreemption, for a pod no node could take). Muster takes
     * room back for gangs itself ({@link Preemptions}), so a gang member's preemptor gets no candidate at all. For a single
     * pod a node is dropped when its victims would break a gang — take a running gang below its {@code minMember}, take
     * part of a gang whose disruption mode is {@code all}, or take a member of a gang still binding — or when the room they
     * free would still not take the pod in Muster's view (it is reserved for a gang, set aside for the gang next in line, or
     * held for a preemptor): evicting there would be for nothing. Members already on their way out (being evicted, or
     * deleted) count as lost. Every other candidate is answered unchanged. When no candidate is left, Muster takes room
     * for the pod itself ({@link Preemptions#singlePodAsked}), and while its decision holds room the pod gets no candidate.
     */
    public Map<String, Victims> preempt(Pod preemptor, Map<String, Victims> candidates) {
        return locked(() -> preemptVerb.answer(preemptor, candidates, nanoTime.getAsLong()));
    }

    /**
     * Expires what is due: reservations past their deadline, assumptions kube-scheduler never confirmed, the admission
     * pass, held binds past their hold; then preemption ({@link Preemptions#tick}). Each step runs even when an earlier
     * one failed (the first failure is rethrown after all ran). Call it periodically.
     */
    public void expireDue() {
        run(() -> {
            long now = nanoTime.getAsLong();
            boolean mayAsk = synced && books.queueGate().lifter().ready(); // the requests are made by the leader alone
            provisionGate.tick(() -> housekeeping.tick(now), mayAsk, books, line, feed, now); // one hold answer per gang per tick
        });
    }

    /**
     * This process no longer leads (its Lease was lost or not renewed in time): every bind waiting at a barrier and
     * every held bind fails now with {@code reason} ({@link BindBarrier#leadershipLost}), and every reservation is
     * released ({@link BindBarrier#dropReservation}), so nothing decided from these books binds later; the new leader
     * plans from the cluster. Bindings already POSTed answer as they come (the binder posts no new one without the Lease).
     * Preemption decisions and the evictions still to make are forgotten ({@link Preemptions#leadershipLost}).
     */
    public void leadershipLost(String reason) {
        run(() -> housekeeping.leadershipLost(reason));
    }

    // ---- cluster sync (ClusterSink) ------------------------------------------------------------------

    /**
     * Records the node with all its labels (pods' node selectors and affinity may name any), their strings shared with
     * other nodes' ({@link Node#interned}: the ledger holds 5,000s of nodes).
     */
    @Override
    public void upsertNode(Node node) {
        Node slim = node.interned();
        run(() -> feed.upsertNode(slim));
    }

    @Override
    public void deleteNode(String name) {
        run(() -> feed.deleteNode(name));
    }

    @Override
    public void upsertPod(Pod pod) {
        run(() -> feed.upsertPod(pod));
    }

    @Override
    public void deletePod(String uid) {
        run(() -> feed.deletePod(uid));
    }

    @Override
    public void upsertPodGroup(PodGroupSpec podGroup) {
        run(() -> feed.upsertPodGroup(podGroup));
    }

    @Override
    public void deletePodGroup(GangKey key) {
        run(() -> feed.deletePodGroup(key));
    }

    @Override
    public void upsertQueue(QueueSpec queue) {
        run(() -> feed.upsertQueue(queue));
    }

    @Override
    public void deleteQueue(String name) {
        run(() -> feed.deleteQueue(name));
    }

    @Override
    public void markSynced() {
        synced = true;
        run(() -> preemptions.handOver(false)); // a leader reads the preemption records at once: it admits nothing before
    }

    /** Whether cluster sync has listed everything once; lock-free (checked on every request). */
    public boolean isSynced() {
        return synced;
    }

    // ---- reads (immutable copies) -------------------------------------------------------------------

    public SchedulerStats stats() {
        return locked(() -> views.stats(synced));
    }

    /** A gang's state for people and tests; null if unknown. */
    public GangView gang(GangKey key) {
        return locked(() -> views.gang(key));
    }

    /**
     * What it would take to run {@code gang} now: nothing, these victims (by gang and queue), or why it cannot run even
     * with preemption. Changes nothing.
     */
    public PreemptionAdvice preemptionAdvice(GangKey gang) {
        return locked(() -> preemptions.advise(gang, nanoTime.getAsLong()));
    }

    /**
     * Turns all-or-nothing scale-up on: gangs are judged by a {@link dev.muster.core.provision.ProvisionHold} on this
     * core's books, whose requests {@code provisioning} keeps.
     */
    public void provisioning(dev.muster.core.provision.Provisioning provisioning) {
        run(() -> provisionGate.turnOn(new dev.muster.core.provision.ProvisionHold(provisioning,
                new dev.muster.core.provision.ClusterRoom(books, admission, preemptions))));
    }

    /** Turns all-or-nothing scale-up on with {@code hold} judging the gangs (tests). */
    void provisioningHold(dev.muster.core.gang.GateHold hold) {
        run(() -> provisionGate.turnOn(hold));
    }

    /** {@link ProvisioningGate#ask} now: returns the reason each gang the provisioning hold keeps is held for. */
    public Map<GangKey, String> askProvisioning() {
        return locked(() -> provisionGate.ask(books, line, feed, nanoTime.getAsLong()));
    }

    /** What the last tick's {@link ProvisioningGate#ask} found: the reason each gang held for nodes is held for. */
    public Map<GangKey, String> heldForNodes() {
        return locked(provisionGate::held);
    }

    /** What preemption has done since start. */
    public PreemptionStats preemptionStats() {
        return locked(preemptions::stats);
    }

    /** Immutable copies of the ledger's nodes (what kube-scheduler's own fit would see, without reservations). */
    public List<dev.muster.core.ledger.NodeSnapshot> nodes() {
        return locked(() -> books.ledger().snapshots());
    }

    /** An immutable copy of the ledger (diagnostics, tests). */
    public LedgerSnapshot ledger() {
        return locked(() -> books.ledger().snapshot());
    }

    /** The ledger's books checked against its records; empty when they balance (tests, diagnostics). */
    public List<String> checkInvariants() {
        return locked(views::checkInvariants);
    }

    // ---- the lock ------------------------------------------------------------------------------------

    /** How often a caller found the lock held, and how long such callers waited in all: read without the lock. */
    public record LockWaits(long contended, long waitNanos) {}

    public LockWaits lockWaits() {
        return lock.waits();
    }

    private void run(Runnable body) {
        locked(() -> {
            body.run();
            return null;
        });
    }

    private <T> T locked(Supplier<T> body) {
        return lock.call(body);
    }
}
