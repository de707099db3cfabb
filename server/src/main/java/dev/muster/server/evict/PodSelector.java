package dev.muster.server.evict;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * A PodDisruptionBudget's {@code spec.selector} as {@code policy/v1} reads it: every {@code matchLabels} entry and every
 * {@code matchExpressions} requirement must hold; an empty selector ({@code {}}) selects every pod of the namespace; a
 * missing or null selector, and an invalid one (an unknown operator, {@code In}/{@code NotIn} without values,
 * {@code Exists}/{@code DoesNotExist} with values), selects none — what the Eviction API does with it. Immutable.
 */
final class PodSelector {
    /** Selects no pod. */
    static final PodSelector NONE = new PodSelector(false, Map.of(), List.of());

    private enum Operator { IN, NOT_IN, EXISTS, DOES_NOT_EXIST }

    private record Requirement(String key, Operator operator, Set<String> values) {
        boolean holds(Map<String, String> labels) {
            String value = labels.get(key);
            return switch (operator) {
                case IN -> value != null && values.contains(value);
                case NOT_IN -> value == null || !values.contains(value);
                case EXISTS -> value != null;
                case DOES_NOT_EXIST -> value == null;
            };
        }
    }

    private final boolean selects;
    private final Map<String, String> matchLabels;
    private final List<Requirement> requirements;

    private PodSelector(boolean selects, Map<String, String> matchLabels, List<Requirement> requirements) {
        this.selects = selects;
        this.matchLabels = matchLabels;
        this.requirements = requirements;
    }

    /** Whether a pod with {@code labels} (null: none) is selected. */
    boolean matches(Map<String, String> labels) {
        if (!selects) {
            return false;
        }
        Map<String, String> l = labels == null ? Map.of() : labels;
        for (Map.Entry<String, String> e : matchLabels.entrySet()) {
            if (!e.getValue().equals(l.get(e.getKey()))) {
                return false;
            }
        }
        for (Requirement r : requirements) {
            if (!r.holds(l)) {
                return false;
            }
        }
        return true;
    }

    /** {@code spec.selector} as the API server sent it (null or JSON null: selects none). */
    static PodSelector parse(JsonElement selector) {
        if (selector == null || !selector.isJsonObject()) {
            return NONE;
        }
        JsonObject s = selector.getAsJsonObject();
        Map<String, String> labels = new TreeMap<>();
        JsonElement ml = s.get("matchLabels");
        if (ml != null && !ml.isJsonNull()) {
            if (!ml.isJsonObject()) {
                return NONE;
            }
            for (Map.Entry<String, JsonElement> e : ml.getAsJsonObject().entrySet()) {
                String value = text(e.getValue());
                if (value == null) {
                    return NONE;
                }
                labels.put(e.getKey(), value);
            }
        }
        List<Requirement> requirements = new java.util.ArrayList<>();
        JsonElement me = s.get("matchExpressions");
        if (me != null && !me.isJsonNull()) {
            if (!me.isJsonArray()) {
                return NONE;
            }
            for (JsonElement item : me.getAsJsonArray()) {
                Requirement r = item.isJsonObject() ? requirement(item.getAsJsonObject()) : null;
                if (r == null) {
                    return NONE;
                }
                requirements.add(r);
            }
        }
        return new PodSelector(true, Map.copyOf(labels), List.copyOf(requirements));
    }

    private static Requirement requirement(JsonObject e) {
        String key = text(e.get("key"));
        String op = text(e.get("operator"));
        if (key == null || key.isEmpty() || op == null) {
            return null;
        }
        Set<String> values = new HashSet<>();
        JsonElement v = e.get("values");
        if (v != null && !v.isJsonNull()) {
            if (!v.isJsonArray()) {
                return null;
            }
            for (JsonElement x : (JsonArray) v) {
                String value = text(x);
                if (value == null) {
                    return null;
                }
                values.add(value);
            }
        }
        Operator operator = switch (op) {
            case "In" -> Operator.IN;
            case "NotIn" -> Operator.NOT_IN;
            case "Exists" -> Operator.EXISTS;
            case "DoesNotExist" -> Operator.DOES_NOT_EXIST;
            default -> null;
        };
        if (operator == null) {
            return null;
        }
        boolean needsValues = operator == Operator.IN || operator == Operator.NOT_IN;
        if (needsValues == values.isEmpty()) {
            return null;
        }
        return new Requirement(key, operator, Set.copyOf(values));
    }

    private static String text(JsonElement e) {
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString() ? e.getAsString() : null;
    }

    @Override
    public String toString() {
        return selects ? "matchLabels " + matchLabels + ", matchExpressions " + requirements : "nothing";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PodSelector p && selects == p.selects && matchLabels.equals(p.matchLabels) && requirements.equals(p.requirements);
    }

    @Override
    public int hashCode() {
        return Objects.hash(selects, matchLabels, requirements);
    }
}
