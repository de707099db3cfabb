package dev.muster.controller.queues;

import dev.muster.core.resources.Resources;
import dev.muster.core.status.PodGroupView;
import dev.muster.core.status.QueuePreemptions;
import dev.muster.core.status.QueueStatus;
import dev.muster.core.status.QueueView;
import dev.muster.proto.v1.GangInfo;
import dev.muster.proto.v1.GangRef;
import dev.muster.proto.v1.GangState;
import dev.muster.proto.v1.QueueInfo;
import dev.muster.proto.v1.ResourceList;

/** Core views to {@code muster.v1} messages. Stateless. */
final class QueueMessages {
    private QueueMessages() {}

    static QueueInfo queue(QueueView v) {
        QueueStatus s = v.status();
        QueueInfo.Builder b = QueueInfo.newBuilder()
                .setName(v.name())
                .setState(s.state().wire())
                .setWeight(v.spec().weight())
                .setAllocated(resources(s.allocated()))
                .setPending(s.pending())
                .setInqueue(s.inqueue())
                .setRunning(s.running())
                .setUnknown(s.unknown())
                .setCompleted(s.completed())
                .setReservations(v.reservations());
        if (v.spec().capability() != null) {
            b.setCapability(resources(v.spec().capability()));
        }
        if (v.share() != null) {
            b.setFairShare(resources(v.share().fairShare())).setBorrowed(resources(v.share().borrowed()));
        }
        QueuePreemptions p = v.preemptions();
        b.setPreemptions(dev.muster.proto.v1.QueuePreemptions.newBuilder()
                .setLostToReclaimPods(p.lostToReclaimPods()).setLostToReclaim(resources(p.lostToReclaim()))
                .setWonByReclaimPods(p.wonByReclaimPods()).setWonByReclaim(resources(p.wonByReclaim()))
                .setPreemptedPods(p.preemptedPods()).setPreempted(resources(p.preempted())));
        return b.build();
    }

    static QueueInfo deleted(String name) {
        return QueueInfo.newBuilder().setName(name).setDeleted(true).build();
    }

    static GangInfo gang(PodGroupView v) {
        return GangInfo.newBuilder()
                .setGang(GangRef.newBuilder().setNamespace(v.key().namespace()).setName(v.key().name()))
                .setQueue(v.queue())
                .setState(v.state() == null ? GangState.GANG_STATE_UNSPECIFIED : GangState.valueOf("GANG_STATE_" + v.state().name()))
                .setReason(v.reason())
                .setPhase(v.status().phase().wire())
                .setMinMember(v.minMember())
                .setRunning(v.status().running())
                .setSucceeded(v.status().succeeded())
                .setFailed(v.status().failed())
                .build();
    }

    static ResourceList resources(Resources r) {
        return ResourceList.newBuilder().putAllAmounts(r.asMap()).build();
    }
}
