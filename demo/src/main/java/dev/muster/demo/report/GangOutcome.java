package dev.muster.demo.report;

import dev.muster.core.model.GangKey;
import dev.muster.core.resources.Resources;
import dev.muster.demo.cluster.ClusterPod;
import dev.muster.demo.cluster.PodGroupObject;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How one gang fared, read from the cluster at the end of the run (simulated nanoseconds; -1: never).
 *
 * <p>A gang <b>started whole</b> when at least {@code minMember} of its pods were bound and none had finished
 * before the {@code minMember}-th was bound. It <b>started partially</b> when some but fewer than
 * {@code minMember} pods were ever bound, or a member finished before the gang was complete — the failure gang
 * scheduling exists to prevent. Otherwise it <b>never started</b>.
 *
 * @param startedAt   when its {@code minMember}-th pod was bound
 * @param bindSpread  from its first bind to its {@code minMember}-th (the barrier releases them together)
 * @param member      one member's requests (all members of a demo gang have one shape); zero when it had no pods
 */
public record GangOutcome(GangKey key, String queue, int size, int minMember, long createdAt, int everBound, long startedAt,
                          long bindSpread, Kind kind, dev.muster.core.model.GangApi api, Resources member) {
    public enum Kind { WHOLE, PARTIAL, NEVER_STARTED }

    public GangOutcome {
        api = api == null ? dev.muster.core.model.GangApi.VOLCANO : api;
        member = member == null ? Resources.ZERO : member;
    }

    /** A Volcano gang whose members' shape is not known. */
    public GangOutcome(GangKey key, String queue, int size, int minMember, long createdAt, int everBound, long startedAt,
                       long bindSpread, Kind kind) {
        this(key, queue, size, minMember, createdAt, everBound, startedAt, bindSpread, kind, null, null);
    }

    /** What it needs to start: {@code minMember} (at least one) members' requests. */
    public Resources need() {
        return member.times(Math.max(1, minMember));
    }

    /** Whether it was waiting at simulated time {@code at}: created, not started. */
    public boolean waitingAt(long at) {
        return createdAt <= at && (startedAt < 0 || startedAt > at);
    }

    public long waitNanos() {
        return startedAt < 0 ? -1 : startedAt - createdAt;
    }

    /** Started whole, but some members beyond {@code minMember} were never bound. */
    public boolean incomplete() {
        return kind == Kind.WHOLE && everBound < size;
    }

    public static List<GangOutcome> of(List<PodGroupObject> podGroups, List<ClusterPod> pods) {
        Map<GangKey, List<ClusterPod>> members = new HashMap<>();
        for (ClusterPod p : pods) {
            if (p.gang() != null) {
                members.computeIfAbsent(p.gang(), k -> new ArrayList<>()).add(p);
            }
        }
        List<GangOutcome> out = new ArrayList<>();
        for (PodGroupObject pg : podGroups) {
            List<ClusterPod> m = members.getOrDefault(pg.key(), List.of());
            long[] bound = m.stream().mapToLong(ClusterPod::boundAt).filter(t -> t >= 0).sorted().toArray();
            long firstFinish = m.stream().mapToLong(ClusterPod::finishedAt).filter(t -> t >= 0).min().orElse(-1);
            int min = Math.max(1, pg.spec().minMember());
            long started = bound.length >= min ? bound[min - 1] : -1;
            Kind kind;
            if (bound.length == 0) {
                kind = Kind.NEVER_STARTED;
            } else if (started < 0 || (firstFinish >= 0 && firstFinish < started)) {
                kind = Kind.PARTIAL;
            } else {
                kind = Kind.WHOLE;
            }
            long spread = started < 0 ? -1 : started - bound[0];
            out.add(new GangOutcome(pg.key(), pg.spec().queue(), m.size(), pg.spec().minMember(), pg.createdAt(), bound.length,
                    kind == Kind.WHOLE ? started : -1, kind == Kind.WHOLE ? spread : -1, kind, pg.spec().api(),
                    m.isEmpty() ? null : m.getFirst().request()));
        }
        return out;
    }
}
