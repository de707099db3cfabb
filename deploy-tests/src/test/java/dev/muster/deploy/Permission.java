package dev.muster.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One (apiGroup, resource, verb) a role grants, optionally limited to one object name
 * ({@link #ANY_NAME} when not limited). RBAC rules are expanded into these so a table of allowed
 * permissions can be compared with what the chart renders.
 */
record Permission(String apiGroup, String resource, String verb, String resourceName) {
    static final String ANY_NAME = "*any*";

    static Permission of(String apiGroup, String resource, String verb) {
        return new Permission(apiGroup, resource, verb, ANY_NAME);
    }

    static Permission named(String apiGroup, String resource, String verb, String name) {
        return new Permission(apiGroup, resource, verb, name);
    }

    /** Every permission a Role or ClusterRole body grants. */
    static List<Permission> expand(Map<String, Object> role) {
        List<Permission> out = new ArrayList<>();
        for (Map<String, Object> rule : Tree.maps(role, "rules")) {
            List<String> names = Tree.strings(rule, "resourceNames");
            for (String group : Tree.strings(rule, "apiGroups")) {
                for (String resource : Tree.strings(rule, "resources")) {
                    for (String verb : Tree.strings(rule, "verbs")) {
                        if (names.isEmpty()) {
                            out.add(of(group, resource, verb));
                        } else {
                            names.forEach(n -> out.add(named(group, resource, verb, n)));
                        }
                    }
                }
            }
            // Non-resource URLs are never allowed: record them as a permission no table contains.
            if (!Tree.list(rule, "nonResourceURLs").isEmpty()) {
                out.add(of("nonResourceURLs", Tree.strings(rule, "nonResourceURLs").toString(), Tree.strings(rule, "verbs").toString()));
            }
        }
        return out;
    }

    @Override
    public String toString() {
        String group = apiGroup.isEmpty() ? "core" : apiGroup;
        return group + "/" + resource + ":" + verb + (ANY_NAME.equals(resourceName) ? "" : "[" + resourceName + "]");
    }
}
