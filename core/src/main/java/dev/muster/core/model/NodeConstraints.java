package dev.muster.core.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Where a pod may run, as its own spec says: {@code spec.nodeSelector}, the required node affinity
 * ({@code spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution}), {@code spec.tolerations}, and
 * whether {@code spec.schedulingGates} keep kube-scheduler from trying it at all. {@link NodeMatcher} judges a node
 * against them exactly as kube-scheduler's NodeAffinity and TaintToleration filters do.
 *
 * <p>{@code undecided} names the constraints Muster does not judge itself (required inter-pod affinity or anti-affinity,
 * topology spread with {@code DoNotSchedule}, persistent or ephemeral volumes, resource claims): only kube-scheduler's
 * own filter knows where they allow the pod. Immutable; {@link #NONE} for a pod with none of them.
 *
 * @param nodeSelector    {@code spec.nodeSelector}: every pair must be a label of the node
 * @param requiredTerms   the required node affinity's {@code nodeSelectorTerms} (ORed), or null when the pod has none
 *                        (an empty list matches no node, as in kube-scheduler)
 * @param tolerations     {@code spec.tolerations}
 * @param schedulingGates the names in {@code spec.schedulingGates}; kube-scheduler does not try a gated pod
 * @param undecided       what kube-scheduler alone judges (e.g. "inter-pod anti-affinity"), or "" when nothing
 */
public record NodeConstraints(Map<String, String> nodeSelector, List<Term> requiredTerms, List<Toleration> tolerations,
                              List<String> schedulingGates, String undecided) {
    public static final NodeConstraints NONE = new NodeConstraints(Map.of(), null, List.of(), List.of(), "");

    /** The field that {@code matchFields} may name: the node's name. */
    public static final String NAME_FIELD = "metadata.name";

    public NodeConstraints {
        nodeSelector = nodeSelector == null || nodeSelector.isEmpty() ? Map.of() : Map.copyOf(nodeSelector);
        requiredTerms = requiredTerms == null ? null : List.copyOf(requiredTerms);
        tolerations = tolerations == null || tolerations.isEmpty() ? List.of() : List.copyOf(tolerations);
        schedulingGates = schedulingGates == null || schedulingGates.isEmpty() ? List.of() : List.copyOf(schedulingGates);
        undecided = undecided == null ? "" : undecided;
    }

    /** These constraints, or {@link #NONE} when they say nothing (so pods without any share one object). */
    public NodeConstraints orNone() {
        return equals(NONE) ? NONE : this;
    }

    /** The pod carries {@code schedulingGates}: kube-scheduler does not try it until they are removed. */
    public boolean gated() {
        return !schedulingGates.isEmpty();
    }

    /** The pod has constraints only kube-scheduler's own filter judges ({@link #undecided()}). */
    public boolean hasUndecided() {
        return !undecided.isEmpty();
    }

    /** Nothing here restricts nodes: no selector, no required affinity (tolerations alone restrict nothing). */
    public boolean selectsAnyNode() {
        return nodeSelector.isEmpty() && requiredTerms == null;
    }

    /** {@code nodeSelector} as {@code k=v, k2=v2}, sorted. */
    public String describeSelector() {
        List<String> out = new ArrayList<>();
        new TreeMap<>(nodeSelector).forEach((k, v) -> out.add(k + "=" + v));
        return String.join(", ", out);
    }

    /** A node selector term: its expressions (on labels) and its fields (on the node's name), all of which must match. */
    public record Term(List<Requirement> matchExpressions, List<Requirement> matchFields) {
        public Term {
            matchExpressions = matchExpressions == null ? List.of() : List.copyOf(matchExpressions);
            matchFields = matchFields == null ? List.of() : List.copyOf(matchFields);
        }
    }

    /** A node selector requirement: {@code key operator values}. */
    public record Requirement(String key, Operator operator, List<String> values) {
        public Requirement {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(operator, "operator");
            values = values == null ? List.of() : List.copyOf(values);
        }

        @Override
        public String toString() {
            return switch (operator) {
                case EXISTS, DOES_NOT_EXIST -> key + " " + operator.wire;
                default -> key + " " + operator.wire + " " + values;
            };
        }
    }

    /** A node selector operator; {@link #UNKNOWN} (any other word) matches nothing. */
    public enum Operator {
        IN("In"), NOT_IN("NotIn"), EXISTS("Exists"), DOES_NOT_EXIST("DoesNotExist"), GT("Gt"), LT("Lt"), UNKNOWN("?");

        private final String wire;

        Operator(String wire) {
            this.wire = wire;
        }

        /** The operator the API spells {@code s}, or {@link #UNKNOWN}. */
        public static Operator parse(String s) {
            for (Operator o : values()) {
                if (o != UNKNOWN && o.wire.equals(s)) {
                    return o;
                }
            }
            return UNKNOWN;
        }
    }

    /**
     * A toleration: {@code operator} {@code Exists} or {@code Equal} ("" means Equal), {@code effect} "" for every effect,
     * {@code key} "" (with Exists) for every key.
     */
    public record Toleration(String key, String operator, String value, String effect) {
        public static final String EXISTS = "Exists";
        public static final String EQUAL = "Equal";

        public Toleration {
            key = key == null ? "" : key;
            operator = operator == null ? "" : operator;
            value = value == null ? "" : value;
            effect = effect == null ? "" : effect;
        }

        /** As {@code v1.Toleration.ToleratesTaint}. */
        public boolean tolerates(NodeTaint t) {
            if (!effect.isEmpty() && !effect.equals(t.effect())) {
                return false;
            }
            if (!key.isEmpty() && !key.equals(t.key())) {
                return false;
            }
            return switch (operator) {
                case "", EQUAL -> value.equals(t.value());
                case EXISTS -> true;
                default -> false;
            };
        }
    }
}
