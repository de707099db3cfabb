package dev.muster.deploy;

import java.util.List;
import java.util.Map;

/**
 * Typed reads from a parsed YAML tree (maps, lists, scalars as snakeyaml builds them). A missing
 * key reads as an empty map or list, so assertions fail on the value, not on a NullPointerException.
 */
final class Tree {
    private Tree() {}

    static Object at(Object node, String... path) {
        Object current = node;
        for (String key : path) {
            if (!(current instanceof Map<?, ?> map)) {
                return null;
            }
            current = map.get(key);
        }
        return current;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object node, String... path) {
        Object value = at(node, path);
        return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object node, String... path) {
        Object value = at(node, path);
        return value instanceof List<?> l ? (List<Object>) l : List.of();
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> maps(Object node, String... path) {
        return list(node, path).stream().map(o -> (Map<String, Object>) o).toList();
    }

    static String string(Object node, String... path) {
        Object value = at(node, path);
        return value == null ? null : value.toString();
    }

    static List<String> strings(Object node, String... path) {
        return list(node, path).stream().map(Object::toString).toList();
    }
}
