package dev.muster.core.provision;

import dev.muster.core.gang.Gang;
import dev.muster.core.gang.GateHold;
import dev.muster.core.model.GangKey;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Keeps an admitted gang behind the gate while it needs nodes that are not there yet. Once its request is
 * {@code Provisioned} it {@linkplain #claimsRoom claims} the room that comes: the admission pass makes it next in line,
 * so each new node's room is set aside for it as the node registers, before any other pod's filter may take it. Asked by the gate's lift for a
 * gang its queue admits:
 * <ul>
 *   <li>the gang runs or holds a reservation: let go (a request not provisioned yet is withdrawn);</li>
 *   <li>its request is {@code Provisioned}: its room is reserved at once ({@link Room#reserve}), so nothing else is
 *       admitted onto the new nodes while the gang binds; let go once reserved, with the annotations that tell
 *       cluster-autoscaler the pods consume the request (so it does not buy twice);</li>
 *   <li>it waits for a request, or for the backoff after a failed one: hold, saying why;</li>
 *   <li>otherwise it is judged (at most every {@link #RECHECK_MILLIS} ms, the judgement is not cheap): if it fits on the
 *       free room now, or preemption would place it, let go (withdrawing a request not provisioned yet: room came
 *       free before the nodes did); if only new nodes would, ask for them
 *       ({@link Provisioning#need}) and hold.</li>
 * </ul>
 * Confined to the core's lock (its judgement cache is not guarded otherwise); it takes {@link Provisioning}'s lock
 * inside it.
 */
public final class ProvisionHold implements GateHold {
    static final long RECHECK_MILLIS = 5_000;
    private static final int CACHE_LIMIT = 1024;
    /** The pod annotations cluster-autoscaler reads (the current keys and the earlier ones it still honours). */
    public static final String CONSUME = "autoscaling.x-k8s.io/consume-provisioning-request";
    public static final String CLASS = "autoscaling.x-k8s.io/provisioning-class-name";
    public static final String CONSUME_EARLIER = "cluster-autoscaler.kubernetes.io/consume-provisioning-request";
    public static final String CLASS_EARLIER = "cluster-autoscaler.kubernetes.io/provisioning-class-name";

    private final Provisioning provisioning;
    private final Room room;
    private final Map<GangKey, Judged> judged = new HashMap<>();

    private record Judged(int version, long at, Room.Outlook outlook) {}

    public ProvisionHold(Provisioning provisioning, Room room) {
        this.provisioning = provisioning;
        this.room = room;
    }

    @Override
    public String reason(Gang g, long now) {
        GangKey key = g.key();
        if (g.running()) {
            provisioning.runs(key);
            judged.remove(key);
            return null;
        }
        Provisioning.Answer a = provisioning.answer(key, now);
        if (a != null && (a.phase() == Phase.PROVISIONED || a.phase() == Phase.DONE)) {
            if (room.admitted(g)) {
                return null;
            }
            Refusal why = room.reserve(g); // the new room is this gang's before anything else is admitted onto it
            return why == null ? null : a.text() + "; its room is not all there yet: " + why.text();
        }
        if (room.admitted(g)) {
            provisioning.withdraw(key);
            return null;
        }
        if (a != null && a.phase() == Phase.FAILED && !a.backoffOver()) {
            return a.text();
        }
        Room.Outlook o = outlook(g, now);
        if (o != Room.Outlook.NEEDS_NODES) {
            if (a != null) {
                provisioning.withdraw(key); // room came free (or can be taken back) before the nodes came
            }
            return null;
        }
        if (g.memberCount() < g.minMember() || !g.tasksShort().isEmpty()) {
            // the request is made from the members' pod specs: pods that do not exist yet have none
            return "needs more nodes than the cluster has; asks the autoscaler once all its pods exist (" + g.memberCount() + "/"
                    + g.minMember() + ")";
        }
        List<String> waiting = new ArrayList<>();
        for (Pod m : g.members()) {
            if (!m.isBound()) {
                waiting.add(m.id().name());
            }
        }
        return provisioning.need(key, waiting, now).text();
    }

    /**
     * Its request is {@code Provisioned} and its room not reserved yet: the nodes bought for it are coming
     * (cluster-autoscaler says {@code Provisioned} once its scale-up succeeded; the nodes register after).
     */
    @Override
    public boolean claimsRoom(Gang g) {
        Provisioning.Answer a = provisioning.answer(g.key(), 0);
        return a != null && (a.phase() == Phase.PROVISIONED || a.phase() == Phase.DONE) && !g.running() && !room.admitted(g);
    }

    @Override
    public Map<String, String> annotations(Gang g) {
        Provisioning.Answer a = provisioning.answer(g.key(), 0);
        if (a == null || (a.phase() != Phase.PROVISIONED && a.phase() != Phase.DONE)) {
            return Map.of();
        }
        String cls = provisioning.settings().className();
        return Map.of(CONSUME, a.name(), CLASS, cls, CONSUME_EARLIER, a.name(), CLASS_EARLIER, cls);
    }

    private Room.Outlook outlook(Gang g, long now) {
        Judged j = judged.get(g.key());
        if (j != null && j.version() == g.version() && now - j.at() < RECHECK_MILLIS) {
            return j.outlook();
        }
        if (judged.size() >= CACHE_LIMIT) {
            judged.values().removeIf(old -> now - old.at() >= RECHECK_MILLIS);
        }
        Room.Outlook o = room.outlook(g);
        judged.put(g.key(), new Judged(g.version(), now, o));
        return o;
    }
}
