package dev.muster.core.status;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodGroupSpec;
import dev.muster.core.model.PodId;
import dev.muster.core.model.PodPhase;
import dev.muster.core.model.QueueSpec;
import dev.muster.core.model.QueueState;
import dev.muster.core.resources.ResourceNames;
import dev.muster.core.resources.Resources;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.stream.AllocationTotals;
import dev.muster.core.model.GangState;
import dev.muster.core.stream.SequencedEvent;
import java.util.HashMap;
import java.util.Map;

/**
 * Drives a {@link StatusFolding} in tests with short words: PodGroups live in namespace "ns", sequences are
 * assigned in order, and the driver keeps its own {@link AllocationTotals} of what it streamed so it can cut
 * a snapshot like the extender's journal would. Not thread-safe.
 */
public final class FoldDriver {
    public static final String NS = "ns";
    public final ManualClock clock = ManualClock.at("2025-01-01T00:00:00Z");
    public final RecordingListener listener = new RecordingListener();
    public final StatusFolding fold;
    private final AllocationTotals sent = new AllocationTotals();
    private final Map<String, String> queueOf = new HashMap<>();
    private long sequence;

    public FoldDriver() {
        this.fold = new StatusFolding(clock, listener);
    }

    public FoldDriver(StatusChangeListener listener) {
        this.fold = new StatusFolding(clock, listener);
    }

    /** A warm fold that reports membership crossings to {@code membership}. */
    public FoldDriver(GangShortfallListener membership) {
        this.fold = new StatusFolding(clock, listener, true, membership);
    }

    /** A warm fold that reports the Events preemptions ask for to {@code notes}. */
    public static FoldDriver notingTo(GangNoteListener notes) {
        return new FoldDriver(GangShortfallListener.NONE, notes);
    }

    private FoldDriver(GangShortfallListener membership, GangNoteListener notes) {
        this.fold = new StatusFolding(clock, listener, true, membership, notes);
    }

    public static GangKey key(String podGroup) {
        return new GangKey(NS, podGroup);
    }

    public FoldDriver queue(String name) {
        fold.observeQueue(QueueSpec.open(name, null));
        return this;
    }

    public FoldDriver queue(String name, QueueState state) {
        fold.observeQueue(new QueueSpec(name, state, 1, null, null, null, true));
        return this;
    }

    public FoldDriver deleteQueue(String name) {
        fold.queueDeleted(name);
        return this;
    }

    public FoldDriver podGroup(String name, int minMember, String queue) {
        return podGroup(name, minMember, queue, null);
    }

    public FoldDriver podGroup(String name, int minMember, String queue, PodGroupStatus observed) {
        queueOf.put(name, queue);
        fold.observePodGroup(PodGroupSpec.of(key(name), minMember, queue), observed);
        return this;
    }

    public FoldDriver deletePodGroup(String name) {
        fold.podGroupDeleted(key(name));
        return this;
    }

    public FoldDriver pod(String uid, String podGroup, PodPhase phase, boolean bound) {
        fold.observePod(new PodObservation(uid, podGroup == null ? null : key(podGroup), phase, bound, "", NS + "/" + uid));
        return this;
    }

    /** {@code n} pods {@code <podGroup>-0..n-1}, all in the same phase. */
    public FoldDriver pods(String podGroup, int n, PodPhase phase, boolean bound) {
        for (int i = 0; i < n; i++) {
            pod(podGroup + "-" + i, podGroup, phase, bound);
        }
        return this;
    }

    public FoldDriver deletePod(String uid) {
        fold.podDeleted(uid);
        return this;
    }

    public FoldDriver gang(String podGroup, GangState state, String reason) {
        return send(new AllocationEvent.GangChanged(key(podGroup), queueOf.getOrDefault(podGroup, "default"), state, reason));
    }

    public FoldDriver gang(String podGroup, GangState state, dev.muster.core.model.Refusal why) {
        return send(new AllocationEvent.GangChanged(key(podGroup), queueOf.getOrDefault(podGroup, "default"), state, why));
    }

    public FoldDriver allocate(String uid, String podGroup, String queue, Resources r) {
        return send(new AllocationEvent.PodAllocated(new PodId(uid, NS, uid), podGroup == null ? null : key(podGroup), queue, "node-1", r));
    }

    public FoldDriver release(String uid, String podGroup, String queue, Resources r) {
        return send(new AllocationEvent.PodReleased(new PodId(uid, NS, uid), podGroup == null ? null : key(podGroup), queue, "node-1", r));
    }

    /** Streams {@code event} with the next sequence. */
    public FoldDriver send(AllocationEvent event) {
        sent.apply(event);
        fold.onEvent(new SequencedEvent(++sequence, clock.millis(), event));
        return this;
    }

    /** Advances the sequence as if {@code event} were streamed, without delivering it (a cut stream). */
    public FoldDriver lose(AllocationEvent event) {
        sent.apply(event);
        ++sequence;
        return this;
    }

    /** Delivers a snapshot of everything streamed (or lost) so far, as the journal would on resume. */
    public FoldDriver resync() {
        fold.onSnapshot(snapshot());
        return this;
    }

    public AllocationSnapshot snapshot() {
        return sent.snapshot(sequence);
    }

    public long sequence() {
        return sequence;
    }

    public PodGroupStatus pg(String name) {
        return (PodGroupStatus) fold.desired(StatusKey.podGroup(key(name)));
    }

    public QueueStatus q(String name) {
        return (QueueStatus) fold.desired(StatusKey.queue(name));
    }

    /** Only cpu (no pod count), so sums compare by cpu alone. */
    public static Resources cpu(long millis) {
        return Resources.builder().set(ResourceNames.CPU, millis).build();
    }
}
