package dev.muster.core.scheduler;

import dev.muster.core.ledger.Ledger;
import dev.muster.core.ledger.NodeEntry;
import dev.muster.core.model.NodeConstraints;
import dev.muster.core.model.NodeMatcher;
import dev.muster.core.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The pod's own node constraints at the verbs: whoever calls filter or bind, a pod never passes onto (or is bound to) a
 * node its {@code nodeSelector}, required node affinity or an untolerated {@code NoSchedule} / {@code NoExecute} taint
 * excludes ({@link NodeMatcher}). kube-scheduler's own filters already dropped such nodes from the candidates it sends,
 * so for kube-scheduler this changes nothing; it stops a caller that sends a node list of its own choosing. A node
 * Muster has not seen is judged with no labels and no taints. Stateless; called under the core's lock.
 */
final class NodeConstraintCheck {
    private NodeConstraintCheck() {}

    /**
     * {@code candidates} split by the pod's constraints: those it admits (the very list when it admits all of them,
     * which is what kube-scheduler sends) and, per excluded node, why.
     */
    record Split(List<String> admitted, Map<String, String> excluded) {}

    static Split split(Pod p, List<String> candidates, Ledger ledger) {
        NodeConstraints c = p.constraints();
        Map<String, String> excluded = null;
        for (int i = 0; i < candidates.size(); i++) {
            NodeEntry e = ledger.candidate(candidates, i);
            String n = candidates.get(i);
            if (!(e == null ? NodeMatcher.admits(c, n, Map.of(), List.of()) : e.admits(c))) {
                if (excluded == null) {
                    excluded = new LinkedHashMap<>();
                }
                excluded.put(n, "pod " + p.id() + ": " + whyNot(c, n, e));
            }
        }
        if (excluded == null) {
            return new Split(candidates, Map.of());
        }
        List<String> admitted = new ArrayList<>(candidates.size() - excluded.size());
        for (String n : candidates) {
            if (!excluded.containsKey(n)) {
                admitted.add(n);
            }
        }
        return new Split(admitted, excluded);
    }

    /** Null when the pod's constraints let it onto {@code node}, else why not (for the bind verb's refusal). */
    static String whyNotOnto(Pod p, String node, Ledger ledger) {
        NodeEntry e = ledger.node(node);
        String why = whyNot(p.constraints(), node, e);
        return why == null ? null : "pod " + p.id() + " may not be bound to node " + node + ": " + why;
    }

    private static String whyNot(NodeConstraints c, String node, NodeEntry e) {
        if (e == null || !e.known()) {
            String why = NodeMatcher.whyNot(c, node, Map.of(), List.of());
            return why == null ? null : why + " (muster has not seen the node's labels)";
        }
        return e.whyExcludes(c);
    }
}
