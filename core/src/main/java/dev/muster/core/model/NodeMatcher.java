package dev.muster.core.model;

import dev.muster.core.model.NodeConstraints.Requirement;
import dev.muster.core.model.NodeConstraints.Term;
import dev.muster.core.model.NodeConstraints.Toleration;
import java.util.List;
import java.util.Map;

/**
 * Whether a pod's {@link NodeConstraints} let it onto a node, judged as kube-scheduler's filters judge it:
 * <ul>
 *   <li>NodeAffinity: every {@code nodeSelector} pair is a label of the node; and when the pod has a required node
 *       affinity, at least one of its terms matches — a term matches when all its {@code matchExpressions} match the
 *       node's labels and all its {@code matchFields} match the node's name (a term with neither matches nothing).
 *       {@code In}: the label is one of the values; {@code NotIn}: it is absent or none of them; {@code Exists} /
 *       {@code DoesNotExist}; {@code Gt} / {@code Lt}: the label and the single value are integers and compare so (else
 *       no match). {@code matchFields} know {@code metadata.name} with {@code In} / {@code NotIn} only.</li>
 *   <li>TaintToleration: every {@code NoSchedule} and {@code NoExecute} taint of the node is tolerated by one of the
 *       pod's tolerations ({@link Toleration#tolerates}). {@code PreferNoSchedule} taints never exclude.</li>
 * </ul>
 * What kube-scheduler alone judges ({@link NodeConstraints#undecided()}) is not judged here. Stateless and thread-safe.
 */
public final class NodeMatcher {
    private NodeMatcher() {}

    /**
     * Null when {@code c} lets the pod onto the node {@code node} with {@code labels} and filtering {@code taints}, else
     * why not, naming the constraint (e.g. {@code node node-1 does not match the pod's nodeSelector (disk=ssd)}).
     */
    public static String whyNot(NodeConstraints c, String node, Map<String, String> labels, List<NodeTaint> taints) {
        if (c == NodeConstraints.NONE && taints.isEmpty()) {
            return null;
        }
        for (Map.Entry<String, String> s : c.nodeSelector().entrySet()) {
            if (!s.getValue().equals(labels.get(s.getKey()))) {
                return "node " + node + " does not match the pod's nodeSelector (" + c.describeSelector() + ")";
            }
        }
        if (c.requiredTerms() != null && !anyTermMatches(c.requiredTerms(), node, labels)) {
            return "node " + node + " does not match the pod's required node affinity (" + describe(c.requiredTerms()) + ")";
        }
        for (NodeTaint t : taints) {
            if (!tolerated(c.tolerations(), t)) {
                return "node " + node + " has taint " + t + " that the pod does not tolerate";
            }
        }
        return null;
    }

    /** Whether {@code c} lets the pod onto the node ({@link #whyNot} is null), without building any text. */
    public static boolean admits(NodeConstraints c, String node, Map<String, String> labels, List<NodeTaint> taints) {
        if (c == NodeConstraints.NONE && taints.isEmpty()) {
            return true;
        }
        for (Map.Entry<String, String> s : c.nodeSelector().entrySet()) {
            if (!s.getValue().equals(labels.get(s.getKey()))) {
                return false;
            }
        }
        if (c.requiredTerms() != null && !anyTermMatches(c.requiredTerms(), node, labels)) {
            return false;
        }
        for (NodeTaint t : taints) {
            if (!tolerated(c.tolerations(), t)) {
                return false;
            }
        }
        return true;
    }

    private static boolean tolerated(List<Toleration> tolerations, NodeTaint t) {
        for (Toleration tol : tolerations) {
            if (tol.tolerates(t)) {
                return true;
            }
        }
        return false;
    }

    private static boolean anyTermMatches(List<Term> terms, String node, Map<String, String> labels) {
        for (Term t : terms) {
            if (matches(t, node, labels)) {
                return true;
            }
        }
        return false;
    }

    static boolean matches(Term t, String node, Map<String, String> labels) {
        if (t.matchExpressions().isEmpty() && t.matchFields().isEmpty()) {
            return false; // an empty term matches no node
        }
        for (Requirement r : t.matchExpressions()) {
            if (!matchesLabel(r, labels)) {
                return false;
            }
        }
        for (Requirement r : t.matchFields()) {
            if (!matchesName(r, node)) {
                return false;
            }
        }
        return true;
    }

    static boolean matchesLabel(Requirement r, Map<String, String> labels) {
        String v = labels.get(r.key());
        return switch (r.operator()) {
            case IN -> v != null && r.values().contains(v);
            case NOT_IN -> v == null || !r.values().contains(v);
            case EXISTS -> v != null;
            case DOES_NOT_EXIST -> v == null;
            case GT, LT -> v != null && r.values().size() == 1 && compares(v, r.values().getFirst(), r.operator());
            case UNKNOWN -> false;
        };
    }

    private static boolean compares(String label, String bound, NodeConstraints.Operator op) {
        long l;
        long b;
        try {
            l = Long.parseLong(label);
            b = Long.parseLong(bound);
        } catch (NumberFormatException e) {
            return false;
        }
        return op == NodeConstraints.Operator.GT ? l > b : l < b;
    }

    private static boolean matchesName(Requirement r, String node) {
        if (!NodeConstraints.NAME_FIELD.equals(r.key())) {
            return false;
        }
        return switch (r.operator()) {
            case IN -> r.values().contains(node);
            case NOT_IN -> !r.values().contains(node);
            default -> false;
        };
    }

    private static String describe(List<Term> terms) {
        if (terms.isEmpty()) {
            return "no terms";
        }
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < terms.size() && i < 3; i++) {
            if (i > 0) {
                sb.append(" or ");
            }
            Term t = terms.get(i);
            List<String> parts = new java.util.ArrayList<>();
            t.matchExpressions().forEach(r -> parts.add(r.toString()));
            t.matchFields().forEach(r -> parts.add(r.toString()));
            sb.append(parts.isEmpty() ? "an empty term" : String.join(", ", parts));
        }
        if (terms.size() > 3) {
            sb.append(" or ").append(terms.size() - 3).append(" more");
        }
        return sb.toString();
    }
}
