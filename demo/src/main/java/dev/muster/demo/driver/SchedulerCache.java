package dev.muster.demo.driver;

import dev.muster.core.model.Node;
import dev.muster.core.resources.Resources;
import dev.muster.demo.cluster.ClusterPod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * kube-scheduler's own view of the cluster, for the filters it runs before calling the extender: each node's
 * allocatable and the requests of the pods on it — those the cluster shows bound and not finished, and those
 * this scheduler has <em>assumed</em> (chosen a node for, binding in flight, possibly waiting at the extender's
 * gang barrier). It knows nothing of gang reservations; that is the extender's business.
 *
 * <p>{@link #feasible} is NodeResourcesFit plus kube-scheduler's node sampling: nodes are scanned from a
 * rotating start index and the scan stops once {@code limit} feasible nodes are found
 * (percentageOfNodesToScore), so successive pods see different subsets of a large cluster.
 *
 * <p>Thread-safe: {@code this} guards every field.
 */
public final class SchedulerCache {
    private record Placement(String node, Resources request) {}

    private final Map<String, Node> nodes = new LinkedHashMap<>(); // guarded by this
    private final List<String> order = new ArrayList<>(); // guarded by this
    private final Map<String, Resources> used = new HashMap<>(); // guarded by this
    private final Map<String, Placement> observed = new HashMap<>(); // guarded by this: uid → bound, unfinished
    private final Map<String, Placement> assumed = new HashMap<>(); // guarded by this: uid → chosen, not yet observed bound
    private int nextStart; // guarded by this

    public synchronized void addNode(Node node) {
        if (nodes.put(node.name(), node) == null) {
            order.add(node.name());
            used.put(node.name(), Resources.ZERO);
        }
    }

    /**
     * A pod as the cluster shows it. Returns true when it freed capacity this cache had counted (it finished,
     * or left its node), which may make waiting pods schedulable.
     */
    public synchronized boolean observe(ClusterPod pod) {
        Placement before = observed.get(pod.uid());
        if (pod.holdsResources()) {
            Placement now = new Placement(pod.nodeName(), pod.request());
            if (now.equals(before)) {
                return false;
            }
            Placement a = assumed.remove(pod.uid());
            if (a != null) {
                take(a, -1);
            }
            if (before != null) {
                take(before, -1);
            }
            observed.put(pod.uid(), now);
            take(now, 1);
            return before != null;
        }
        return removed(pod.uid());
    }

    /** The pod is gone. Returns true when it freed capacity. */
    public synchronized boolean removed(String uid) {
        Placement before = observed.remove(uid);
        Placement a = assumed.remove(uid);
        if (a != null) {
            take(a, -1);
        }
        if (before != null) {
            take(before, -1);
            return true;
        }
        return false;
    }

    /** This scheduler chose {@code node} for the pod; counted until the cluster shows it bound or {@link #forget}. */
    public synchronized void assume(String uid, String node, Resources request) {
        if (observed.containsKey(uid)) {
            return;
        }
        Placement p = new Placement(node, request);
        Placement old = assumed.put(uid, p);
        if (old != null) {
            take(old, -1);
        }
        take(p, 1);
    }

    /** The bind failed: the assumption is dropped (unless the cluster already shows the pod bound). */
    public synchronized void forget(String uid) {
        Placement a = assumed.remove(uid);
        if (a != null) {
            take(a, -1);
        }
    }

    private void take(Placement p, int sign) { // lock held
        used.computeIfPresent(p.node(), (k, u) -> sign > 0 ? u.plus(p.request()) : u.minus(p.request()));
    }

    /** The nodes kube-scheduler would pass to the extender, or why there are none. */
    public record Fit(List<String> nodes, String reason) {}

    /** NodeResourcesFit over the nodes from the rotating start, stopping at {@code limit} feasible ones. */
    public synchronized Fit feasible(Resources request, int limit) {
        int n = order.size();
        List<String> out = new ArrayList<>(Math.min(limit, n));
        Map<String, Integer> insufficient = new TreeMap<>();
        int processed = 0;
        for (int i = 0; i < n && out.size() < limit; i++) {
            String name = order.get((nextStart + i) % n);
            processed++;
            Node node = nodes.get(name);
            Resources shortage = request.shortageAgainst(node.allocatable().minus(used.get(name)));
            if (shortage.isZero() && node.schedulable()) {
                out.add(name);
            } else if (!node.schedulable()) {
                insufficient.merge("node(s) were unschedulable", 1, Integer::sum);
            } else {
                for (String r : shortage.asMap().keySet()) {
                    insufficient.merge("Insufficient " + r, 1, Integer::sum);
                }
            }
        }
        nextStart = n == 0 ? 0 : (nextStart + processed) % n;
        if (!out.isEmpty()) {
            return new Fit(out, "");
        }
        StringBuilder reason = new StringBuilder("0/" + n + " nodes are available");
        String sep = ": ";
        for (Map.Entry<String, Integer> e : insufficient.entrySet()) {
            reason.append(sep).append(e.getValue()).append(' ').append(e.getKey());
            sep = ", ";
        }
        return new Fit(List.of(), reason.append('.').toString());
    }

    public synchronized int assumedCount() {
        return assumed.size();
    }
}
