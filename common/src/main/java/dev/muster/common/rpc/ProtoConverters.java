package dev.muster.common.rpc;

import dev.muster.core.model.GangKey;
import dev.muster.core.model.PodId;
import dev.muster.core.model.Refusal;
import dev.muster.core.resources.Resources;
import dev.muster.core.preempt.PreemptionKind;
import dev.muster.core.preempt.Victim;
import dev.muster.core.stream.AllocationEvent;
import dev.muster.core.stream.AllocationSnapshot;
import dev.muster.core.model.GangState;
import dev.muster.core.stream.SequencedEvent;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.GangStatus;
import dev.muster.proto.v1.RefusalCause;
import dev.muster.proto.v1.PodAllocation;
import dev.muster.proto.v1.PodRef;
import dev.muster.proto.v1.ResourceList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates between core values and their {@code muster.v1} protobuf messages. Core → proto never fails
 * (a null queue, node or reason is sent as "", which is what proto3 has for "absent");
 * proto → core validates what core requires and throws {@link ProtoConversionException} naming the field
 * (a message off the wire is input, not trusted state).
 *
 * <p>Stateless; thread-safe.
 */
public final class ProtoConverters {
    private ProtoConverters() {}

    // ---- resources -------------------------------------------------------------------------------

    /** Every non-zero amount, by resource name. */
    public static ResourceList toProto(Resources resources) {
        return ResourceList.newBuilder().putAllAmounts(resources.asMap()).build();
    }

    /**
     * Muster's own amounts between its processes (any long, negative included: deltas and free room travel too);
     * user input is read by {@link dev.muster.core.resources.ResourceList} instead.
     */
    public static Resources fromProto(ResourceList list) {
        Resources.Builder b = Resources.builder();
        for (Map.Entry<String, Long> e : list.getAmountsMap().entrySet()) {
            if (e.getKey().isBlank()) {
                throw new ProtoConversionException("resource list has an empty resource name");
            }
            b.set(e.getKey(), e.getValue());
        }
        return b.build();
    }

    // ---- identities ------------------------------------------------------------------------------

    public static PodRef toProto(PodId pod) {
        return PodRef.newBuilder().setUid(pod.uid()).setNamespace(pod.namespace()).setName(pod.name()).build();
    }

    public static PodId fromProto(PodRef ref) {
        if (ref.getUid().isEmpty()) {
            throw new ProtoConversionException("pod " + ref.getNamespace() + "/" + ref.getName() + " has no uid");
        }
        return new PodId(ref.getUid(), ref.getNamespace(), ref.getName());
    }

    public static GangRef toProto(GangKey gang) {
        return GangRef.newBuilder().setNamespace(gang.namespace()).setName(gang.name()).build();
    }

    public static GangKey fromProto(GangRef ref) {
        if (ref.getNamespace().isEmpty() || ref.getName().isEmpty()) {
            throw new ProtoConversionException("gang ref needs a namespace and a name, got \"" + ref.getNamespace() + "/" + ref.getName() + "\"");
        }
        return new GangKey(ref.getNamespace(), ref.getName());
    }

    // ---- gang state ------------------------------------------------------------------------------

    public static dev.muster.proto.v1.GangState toProto(GangState state) {
        return switch (state) {
            case WAITING -> dev.muster.proto.v1.GangState.GANG_STATE_WAITING;
            case ADMITTED -> dev.muster.proto.v1.GangState.GANG_STATE_ADMITTED;
            case RESERVED -> dev.muster.proto.v1.GangState.GANG_STATE_RESERVED;
            case BOUND -> dev.muster.proto.v1.GangState.GANG_STATE_BOUND;
            case UNSCHEDULABLE -> dev.muster.proto.v1.GangState.GANG_STATE_UNSCHEDULABLE;
            case EXPIRED -> dev.muster.proto.v1.GangState.GANG_STATE_EXPIRED;
            case BACKED_OFF -> dev.muster.proto.v1.GangState.GANG_STATE_BACKED_OFF;
            case DELETED -> dev.muster.proto.v1.GangState.GANG_STATE_DELETED;
        };
    }

    public static GangState fromProto(dev.muster.proto.v1.GangState state) {
        return switch (state) {
            case GANG_STATE_WAITING -> GangState.WAITING;
            case GANG_STATE_ADMITTED -> GangState.ADMITTED;
            case GANG_STATE_RESERVED -> GangState.RESERVED;
            case GANG_STATE_BOUND -> GangState.BOUND;
            case GANG_STATE_UNSCHEDULABLE -> GangState.UNSCHEDULABLE;
            case GANG_STATE_EXPIRED -> GangState.EXPIRED;
            case GANG_STATE_BACKED_OFF -> GangState.BACKED_OFF;
            case GANG_STATE_DELETED -> GangState.DELETED;
            case GANG_STATE_UNSPECIFIED, UNRECOGNIZED -> throw new ProtoConversionException("gang state is " + state);
        };
    }

    // ---- events ----------------------------------------------------------------------------------

    public static dev.muster.proto.v1.AllocationEvent toProto(SequencedEvent event) {
        var b = dev.muster.proto.v1.AllocationEvent.newBuilder().setSequence(event.sequence()).setEpochMillis(event.epochMillis());
        switch (event.event()) {
            case AllocationEvent.PodAllocated a -> b.setAllocated(podAllocation(a.pod(), a.gang(), a.queue(), a.node(), a.resources()));
            case AllocationEvent.PodReleased r -> b.setReleased(podAllocation(r.pod(), r.gang(), r.queue(), r.node(), r.resources()));
            case AllocationEvent.GangChanged g -> b.setGangChanged(gangStatus(g.gang(), g.queue(), g.state(), g.why()));
            case AllocationEvent.QueueShareChanged q -> b.setQueueShare(queueShare(q));
            case AllocationEvent.PreemptionDecided p -> b.setPreemption(preemption(p));
        }
        return b.build();
    }

    public static SequencedEvent fromProto(dev.muster.proto.v1.AllocationEvent event) {
        if (event.getSequence() < 1) {
            throw new ProtoConversionException("event sequence must be at least 1, got " + event.getSequence());
        }
        AllocationEvent core = switch (event.getKindCase()) {
            case ALLOCATED -> {
                PodAllocation a = event.getAllocated();
                yield new AllocationEvent.PodAllocated(fromProto(a.getPod()), gangOrNull(a), a.getQueue(), a.getNode(), fromProto(a.getResources()));
            }
            case RELEASED -> {
                PodAllocation r = event.getReleased();
                yield new AllocationEvent.PodReleased(fromProto(r.getPod()), gangOrNull(r), r.getQueue(), r.getNode(), fromProto(r.getResources()));
            }
            case GANG_CHANGED -> {
                GangStatus g = event.getGangChanged();
                yield new AllocationEvent.GangChanged(fromProto(g.getGang()), g.getQueue(), fromProto(g.getState()), refusal(g));
            }
            case QUEUE_SHARE -> queueShare(event.getQueueShare());
            case PREEMPTION -> preemption(event.getPreemption());
            case KIND_NOT_SET -> throw new ProtoConversionException("event " + event.getSequence() + " has no kind");
        };
        return new SequencedEvent(event.getSequence(), event.getEpochMillis(), core);
    }

    // ---- snapshots -------------------------------------------------------------------------------

    public static dev.muster.proto.v1.AllocationSnapshot toProto(AllocationSnapshot snapshot) {
        var b = dev.muster.proto.v1.AllocationSnapshot.newBuilder().setSequence(snapshot.sequence());
        snapshot.allocatedByQueue().forEach((queue, resources) -> b.putAllocatedByQueue(queue, toProto(resources)));
        snapshot.gangs().forEach((gang, status) -> b.addGangs(gangStatus(gang, status.queue(), status.state(), status.why())));
        snapshot.shares().values().forEach(q -> b.addShares(queueShare(q)));
        return b.build();
    }

    public static AllocationSnapshot fromProto(dev.muster.proto.v1.AllocationSnapshot snapshot) {
        if (snapshot.getSequence() < 0) {
            throw new ProtoConversionException("snapshot sequence must not be negative, got " + snapshot.getSequence());
        }
        Map<String, Resources> byQueue = new HashMap<>();
        snapshot.getAllocatedByQueueMap().forEach((queue, list) -> byQueue.put(queue, fromProto(list)));
        Map<GangKey, AllocationSnapshot.GangStatus> gangs = new HashMap<>();
        for (GangStatus g : snapshot.getGangsList()) {
            GangKey key = fromProto(g.getGang());
            if (gangs.put(key, new AllocationSnapshot.GangStatus(g.getQueue(), fromProto(g.getState()), refusal(g))) != null) {
                throw new ProtoConversionException("snapshot " + snapshot.getSequence() + " lists gang " + key + " twice");
            }
        }
        Map<String, AllocationEvent.QueueShareChanged> shares = new HashMap<>();
        for (dev.muster.proto.v1.QueueShare q : snapshot.getSharesList()) {
            shares.put(q.getQueue(), queueShare(q));
        }
        return new AllocationSnapshot(snapshot.getSequence(), byQueue, gangs, shares);
    }

    private static dev.muster.proto.v1.QueueShare queueShare(AllocationEvent.QueueShareChanged q) {
        return dev.muster.proto.v1.QueueShare.newBuilder().setQueue(q.queue()).setFairShare(toProto(q.fairShare()))
                .setBorrowed(toProto(q.borrowed())).build();
    }

    private static AllocationEvent.QueueShareChanged queueShare(dev.muster.proto.v1.QueueShare q) {
        if (q.getQueue().isEmpty()) {
            throw new ProtoConversionException("queue share without a queue name");
        }
        return new AllocationEvent.QueueShareChanged(q.getQueue(), fromProto(q.getFairShare()), fromProto(q.getBorrowed()));
    }

    private static dev.muster.proto.v1.PreemptionDecided preemption(AllocationEvent.PreemptionDecided p) {
        var b = dev.muster.proto.v1.PreemptionDecided.newBuilder().setPreemptor(toProto(p.preemptor())).setQueue(nullToEmpty(p.queue()))
                .setPriority(p.priority()).setNodes(p.nodes()).setKind(toProto(p.kind()));
        for (Victim v : p.victims()) {
            b.addVictims(toProto(v));
        }
        return b.build();
    }

    /** A victim pod: where it runs, what it holds, its gang (unset for a single pod), queue and priority. */
    public static dev.muster.proto.v1.PreemptionVictim toProto(Victim v) {
        return dev.muster.proto.v1.PreemptionVictim.newBuilder()
                .setPod(podAllocation(v.pod(), v.gang(), v.queue(), v.node(), v.resources())).setPriority(v.priority()).build();
    }

    public static dev.muster.proto.v1.PreemptionKind toProto(PreemptionKind kind) {
        return switch (kind) {
            case PRIORITY -> dev.muster.proto.v1.PreemptionKind.PREEMPTION_KIND_PRIORITY;
            case RECLAIM -> dev.muster.proto.v1.PreemptionKind.PREEMPTION_KIND_RECLAIM;
        };
    }

    private static AllocationEvent.PreemptionDecided preemption(dev.muster.proto.v1.PreemptionDecided p) {
        if (!p.hasPreemptor()) {
            throw new ProtoConversionException("preemption without a preemptor");
        }
        List<Victim> victims = new ArrayList<>(p.getVictimsCount());
        for (dev.muster.proto.v1.PreemptionVictim v : p.getVictimsList()) {
            victims.add(fromProto(v));
        }
        return new AllocationEvent.PreemptionDecided(fromProto(p.getPreemptor()), p.getQueue(), p.getPriority(), fromProto(p.getKind()), victims,
                p.getNodes());
    }

    /** @throws ProtoConversionException for an unset or unknown kind */
    public static PreemptionKind fromProto(dev.muster.proto.v1.PreemptionKind kind) {
        return switch (kind) {
            case PREEMPTION_KIND_PRIORITY -> PreemptionKind.PRIORITY;
            case PREEMPTION_KIND_RECLAIM -> PreemptionKind.RECLAIM;
            case PREEMPTION_KIND_UNSPECIFIED, UNRECOGNIZED -> throw new ProtoConversionException("preemption kind is " + kind);
        };
    }

    public static Victim fromProto(dev.muster.proto.v1.PreemptionVictim v) {
        PodAllocation a = v.getPod();
        return new Victim(fromProto(a.getPod()), gangOrNull(a), a.getQueue(), v.getPriority(), a.getNode(), fromProto(a.getResources()));
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private static PodAllocation podAllocation(PodId pod, GangKey gang, String queue, String node, Resources resources) {
        PodAllocation.Builder b = PodAllocation.newBuilder()
                .setPod(toProto(pod))
                .setQueue(nullToEmpty(queue))
                .setNode(nullToEmpty(node))
                .setResources(toProto(resources));
        if (gang != null) {
            b.setGang(toProto(gang));
        }
        return b.build();
    }

    private static GangKey gangOrNull(PodAllocation allocation) {
        return allocation.hasGang() ? fromProto(allocation.getGang()) : null;
    }

    private static GangStatus gangStatus(GangKey gang, String queue, GangState state, Refusal why) {
        return GangStatus.newBuilder().setGang(toProto(gang)).setQueue(nullToEmpty(queue)).setState(toProto(state))
                .setReason(why.text()).setCause(toProto(why.cause())).build();
    }

    /** Causes map by name: {@code NONE} ↔ {@code REFUSAL_CAUSE_UNSPECIFIED}, X ↔ {@code REFUSAL_CAUSE_X}. */
    static RefusalCause toProto(Refusal.Cause cause) {
        return cause == Refusal.Cause.NONE ? RefusalCause.REFUSAL_CAUSE_UNSPECIFIED : RefusalCause.valueOf("REFUSAL_CAUSE_" + cause.name());
    }

    /** An unknown cause from a newer extender is kept as text only (NONE), never an error: the reason still reads right. */
    static Refusal refusal(GangStatus g) {
        RefusalCause c = g.getCause();
        Refusal.Cause cause = Refusal.Cause.NONE;
        if (c != RefusalCause.REFUSAL_CAUSE_UNSPECIFIED && c != RefusalCause.UNRECOGNIZED) {
            cause = Refusal.Cause.valueOf(c.name().substring("REFUSAL_CAUSE_".length()));
        }
        return Refusal.of(cause, g.getReason());
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
