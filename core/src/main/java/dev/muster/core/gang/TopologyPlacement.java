package dev.muster.core.gang;

import dev.muster.core.gang.GangPlanner.GroupKey;
import dev.muster.core.gang.GangPlanner.Result;
import dev.muster.core.gang.GangPlanner.Scratch;
import dev.muster.core.gang.GangPlanner.Shortfall;
import dev.muster.core.ledger.Domain;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.ledger.TopologyLevels;
import dev.muster.core.model.Refusal;
import dev.muster.core.model.TopologyRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * One topology-constrained plan (a helper of {@link GangPlanner}; lives for one call, confined to its caller).
 *
 * <p><b>Required</b> (level {@code L}): the eligible nodes are grouped by their domain at {@code L} once. For each
 * domain and each group of like members, how many copies fit is summed over its nodes (exact for a single request,
 * an upper bound when groups share nodes). Domains that cannot hold the required members are skipped; the others are
 * tried tightest first — domains that also fit the optional members, least room left over first, so a half-used rack
 * is filled before an empty one and whole racks stay free for the next big gang — and the normal placement runs on
 * the first one's nodes (the next one only if the bound was too optimistic). A domain must contain every node the
 * gang's members already occupy ({@code anchors}). Nothing fits: {@link Refusal.Cause#TOPOLOGY} (or RESOURCES when the
 * cluster as a whole is short too), naming the level, the best domain and what it lacks.
 *
 * <p><b>Preferred</b> (level {@code L}): one domain at {@code L}, else one domain at each wider level in turn, else
 * the fewest domains of {@code L} (largest first) that together hold the gang, else anywhere.
 *
 * <p>A level that is not configured: required refuses (TOPOLOGY, naming the configured levels), preferred plans
 * anywhere. A Volcano tier above the widest level constrains nothing.
 */
final class TopologyPlacement {
    private final GangPlanner planner;
    private final TopologyLevels levels;
    private final Scratch scratch;
    private final Map<GroupKey, Integer> required;
    private final Map<GroupKey, Integer> optional;
    private final GangPlanner.Topology topology;
    private final List<NodeEntry> anchors; // entries of the nodes the gang's members already occupy
    private final List<GroupKey> keys = new ArrayList<>(); // every distinct group, required ones first
    private final long[] wantRequired;
    private final long[] wantAll;

    TopologyPlacement(GangPlanner planner, TopologyLevels levels, Scratch scratch, Map<GroupKey, Integer> required,
                      Map<GroupKey, Integer> optional, GangPlanner.Topology topology, List<NodeEntry> anchors) {
        this.anchors = anchors;
        this.planner = planner;
        this.levels = levels;
        this.scratch = scratch;
        this.required = required;
        this.optional = optional;
        this.topology = topology;
        keys.addAll(required.keySet());
        for (GroupKey k : optional.keySet()) {
            if (!required.containsKey(k)) {
                keys.add(k);
            }
        }
        wantRequired = new long[keys.size()];
        wantAll = new long[keys.size()];
        for (int g = 0; g < keys.size(); g++) {
            wantRequired[g] = required.getOrDefault(keys.get(g), 0);
            wantAll[g] = wantRequired[g] + optional.getOrDefault(keys.get(g), 0);
        }
    }

    Result plan() {
        TopologyRequest t = topology.request();
        boolean hard = t.mode() == TopologyRequest.Mode.REQUIRED;
        int level = levels.levelOf(t);
        if (level == Integer.MIN_VALUE) {
            return anywhere(); // a Volcano tier above the widest level: the whole cluster is one domain
        }
        if (level < 0) {
            if (!hard) {
                return anywhere();
            }
            return new Result.Unfit("required topology level " + levels.describe(t) + " is not configured ("
                    + (levels.isEmpty() ? "no topology levels are configured" : "levels: " + levels) + ")", Refusal.Cause.TOPOLOGY);
        }
        Result one = inOneDomain(level);
        if (hard) {
            return one;
        }
        // preferred: the plan lands in one domain when it can, but the reservation is not confined to it
        if (one instanceof Result.Planned p) {
            return unconfined(p);
        }
        for (int wider = level - 1; wider >= 0; wider--) {
            Result r = inOneDomain(wider);
            if (r instanceof Result.Planned p) {
                return unconfined(p);
            }
        }
        Result few = fewestDomains(level);
        return few != null ? few : anywhere();
    }

    private static Result.Planned unconfined(Result.Planned p) {
        return new Result.Planned(p.placements(), p.total(), null);
    }

    private Result anywhere() {
        Shortfall sf = planner.placeGroups(scratch, scratch.all(), required, optional);
        return sf != null ? new Result.Unfit(sf) : scratch.planned(null);
    }

    /** The eligible nodes of one domain and how many copies of each group fit there. */
    private static final class DomainRoom {
        final String path;
        final List<Integer> nodes = new ArrayList<>();
        final long[] fit;

        DomainRoom(String path, int groups) {
            this.path = path;
            this.fit = new long[groups];
        }

        int[] indices() {
            int[] idx = new int[nodes.size()];
            for (int i = 0; i < idx.length; i++) {
                idx[i] = nodes.get(i);
            }
            return idx;
        }
    }

    private Map<String, DomainRoom> rooms(int level) {
        Map<String, DomainRoom> rooms = new LinkedHashMap<>();
        for (int i = 0; i < scratch.free.length; i++) {
            String path = levels.domainOf(scratch.eligible.get(i).labels(), level);
            if (path == null) {
                continue;
            }
            DomainRoom d = rooms.computeIfAbsent(path, p -> new DomainRoom(p, keys.size()));
            d.nodes.add(i);
            for (int g = 0; g < keys.size(); g++) {
                GroupKey k = keys.get(g);
                if (!k.anywhere() && !k.admits(scratch.eligible.get(i))) {
                    continue; // the members' own constraints keep them off this node
                }
                long copies = Math.min(k.request().copiesFittingIn(scratch.free[i]), wantAll[g]);
                d.fit[g] = Math.min(d.fit[g] + copies, Long.MAX_VALUE / 4);
            }
        }
        return rooms;
    }

    private boolean fits(DomainRoom d, long[] want) {
        for (int g = 0; g < want.length; g++) {
            if (d.fit[g] < want[g]) {
                return false;
            }
        }
        return true;
    }

    /** Room left after the whole gang, in members (smaller is tighter). */
    private long slack(DomainRoom d) {
        long s = 0;
        for (int g = 0; g < keys.size(); g++) {
            s += d.fit[g] - wantAll[g];
        }
        return s;
    }

    /** How many of the required members the domain's room holds (for naming the best domain). */
    private long requiredHeld(DomainRoom d) {
        long s = 0;
        for (int g = 0; g < keys.size(); g++) {
            s += Math.min(d.fit[g], wantRequired[g]);
        }
        return s;
    }

    private long total(long[] want) {
        long s = 0;
        for (long w : want) {
            s += w;
        }
        return s;
    }

    private Result inOneDomain(int level) {
        String key = levels.key(level);
        Map<String, DomainRoom> rooms = rooms(level);
        // the domain must hold the members that are already placed
        TreeSet<String> anchored = new TreeSet<>();
        if (!anchors.isEmpty()) {
            for (NodeEntry e : anchors) {
                String path = levels.domainOf(e.labels(), level);
                if (path == null) {
                    return new Result.Unfit("topology " + key + ": a member is already on node " + e.name()
                            + ", which has no " + key + " label", Refusal.Cause.TOPOLOGY);
                }
                anchored.add(path);
            }
            if (anchored.size() > 1) {
                return new Result.Unfit("topology " + key + ": members are already in " + anchored.size() + " domains ("
                        + String.join(", ", anchored) + ")", Refusal.Cause.TOPOLOGY);
            }
        }
        List<DomainRoom> candidates = new ArrayList<>();
        DomainRoom best = null;
        for (DomainRoom d : rooms.values()) {
            if (!anchored.isEmpty() && !anchored.contains(d.path)) {
                continue;
            }
            if (fits(d, wantRequired)) {
                candidates.add(d);
            }
            if (best == null || requiredHeld(d) > requiredHeld(best) || (requiredHeld(d) == requiredHeld(best) && d.path.compareTo(best.path) < 0)) {
                best = d;
            }
        }
        candidates.sort(Comparator.<DomainRoom>comparingInt(d -> fits(d, wantAll) ? 0 : 1)
                .thenComparingLong(d -> fits(d, wantAll) ? slack(d) : -total(d.fit))
                .thenComparing(d -> d.path));
        Shortfall lastShort = null;
        DomainRoom lastTried = null;
        for (DomainRoom d : candidates) {
            int keep = scratch.placements.size();
            Shortfall sf = planner.placeGroups(scratch, d.indices(), required, optional);
            if (sf == null) {
                return scratch.planned(new Domain(level, key, d.path));
            }
            scratch.rollback(keep);
            lastShort = sf;
            lastTried = d;
        }
        return refusal(level, rooms, anchored, best, lastTried, lastShort);
    }

    private Result.Unfit refusal(int level, Map<String, DomainRoom> rooms, TreeSet<String> anchored, DomainRoom best,
                                 DomainRoom tried, Shortfall triedShort) {
        String key = levels.key(level);
        String head = (topology.request().mode() == TopologyRequest.Mode.REQUIRED ? "required" : "preferred") + " topology " + key + ": ";
        if (rooms.isEmpty()) {
            return new Result.Unfit(head + "no schedulable node has the label " + key, Refusal.Cause.TOPOLOGY);
        }
        long need = total(wantRequired);
        // what the whole cluster holds (nodes without the label included): is it the topology that is short?
        long[] cluster = new long[keys.size()];
        for (int i = 0; i < scratch.free.length; i++) {
            for (int g = 0; g < keys.size(); g++) {
                cluster[g] = Math.min(cluster[g] + Math.min(keys.get(g).request().copiesFittingIn(scratch.free[i]), wantAll[g]), Long.MAX_VALUE / 4);
            }
        }
        long clusterHeld = 0;
        boolean clusterFits = true;
        for (int g = 0; g < keys.size(); g++) {
            clusterHeld += Math.min(cluster[g], wantRequired[g]);
            clusterFits &= cluster[g] >= wantRequired[g];
        }
        StringBuilder text = new StringBuilder(head);
        if (!anchored.isEmpty()) {
            text.append("members are already in ").append(anchored.first()).append("; ");
        }
        if (tried != null) {
            text.append("domain ").append(tried.path).append(" ").append(triedShort.describe());
        } else if (best == null) {
            text.append("no domain holds the gang");
        } else {
            text.append("no single domain has room; best ").append(best.path).append(" fits ")
                    .append(requiredHeld(best)).append(" of ").append(need).append(" members");
            for (int g = 0; g < keys.size(); g++) {
                if (best.fit[g] < wantRequired[g]) {
                    GroupKey k = keys.get(g);
                    text.append(" (").append(new Shortfall(k.task(), k.request(), (int) wantRequired[g], (int) best.fit[g]).describe()).append(")");
                    break;
                }
            }
        }
        text.append(clusterFits ? "; the cluster as a whole has room for them" : "; the cluster as a whole fits only " + clusterHeld);
        return new Result.Unfit(text.toString(), clusterFits ? Refusal.Cause.TOPOLOGY : Refusal.Cause.RESOURCES);
    }

    /**
     * Preferred, when no single domain at any level holds the gang: the fewest domains of {@code level}, largest
     * room first, whose nodes together hold the required members; null when even that does not work.
     */
    private Result fewestDomains(int level) {
        List<DomainRoom> byRoom = new ArrayList<>(rooms(level).values());
        byRoom.sort(Comparator.<DomainRoom>comparingLong(d -> -requiredHeld(d)).thenComparing(d -> d.path));
        long[] sum = new long[keys.size()];
        List<Integer> union = new ArrayList<>();
        for (DomainRoom d : byRoom) {
            union.addAll(d.nodes);
            boolean enough = true;
            for (int g = 0; g < keys.size(); g++) {
                sum[g] += d.fit[g];
                enough &= sum[g] >= wantRequired[g];
            }
            if (enough) {
                int[] idx = union.stream().mapToInt(Integer::intValue).toArray();
                int keep = scratch.placements.size();
                if (planner.placeGroups(scratch, idx, required, optional) == null) {
                    return scratch.planned(null);
                }
                scratch.rollback(keep);
                return null;
            }
        }
        return null;
    }
}
