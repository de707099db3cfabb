package dev.muster.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reading the gang marker policy: extender-config/gang-marker-policy.yaml and the chart's rendering of it
 * (extender.gangMarker), a {@code MutatingAdmissionPolicy} and the {@code MutatingAdmissionPolicyBinding} that
 * applies it.
 */
final class GangMarkerPolicy {
    static final String API_VERSION = "admissionregistration.k8s.io/v1";
    static final String POLICY = "MutatingAdmissionPolicy";
    static final String BINDING = "MutatingAdmissionPolicyBinding";
    /** The matchCondition that names Muster's scheduler profile. */
    static final String SCHEDULER_CONDITION = "scheduled-by-muster";
    /** The matchCondition that recognises a gang member. */
    static final String GANG_CONDITION = "declares-a-gang";

    private GangMarkerPolicy() {}

    static Path file() {
        return RepoLayout.find().extenderConfig().resolve("gang-marker-policy.yaml");
    }

    /** The documents of extender-config/gang-marker-policy.yaml. */
    static List<Manifest> load() {
        try {
            return Chart.parse(Files.readString(file()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The one object of {@code kind} among {@code manifests}; fails when there is not exactly one. */
    static Manifest only(List<Manifest> manifests, String kind) {
        List<Manifest> matching = manifests.stream().filter(m -> kind.equals(m.kind())).toList();
        if (matching.size() != 1) {
            throw new AssertionError("expected exactly one " + kind + ", found " + matching.size());
        }
        return matching.get(0);
    }

    /** The CEL expression of the policy's matchCondition {@code name}. */
    static String condition(Manifest policy, String name) {
        return Tree.maps(policy.spec(), "matchConditions").stream().filter(c -> name.equals(c.get("name")))
                .map(c -> Tree.string(c, "expression")).findFirst()
                .orElseThrow(() -> new AssertionError(policy.id() + " has no matchCondition " + name));
    }

    /** What the scheduler-name condition reads for pods of {@code schedulerName}. */
    static String schedulerCondition(String schedulerName) {
        return "object.spec.schedulerName == '" + schedulerName + "'";
    }

    /** The applyConfiguration expressions of the policy's mutations. */
    static List<String> applyConfigurations(Manifest policy) {
        return Tree.maps(policy.spec(), "mutations").stream()
                .map(m -> Tree.string(m, "applyConfiguration", "expression")).toList();
    }

    /**
     * The object without what may differ between installs: metadata.name, metadata.labels, the binding's policyName
     * and, when {@code schedulerName} is given, the scheduler-name condition (replaced by the one for
     * {@code schedulerName}, so objects rendered for another profile compare equal to the file).
     */
    static Map<String, Object> withoutNames(Manifest object, String schedulerName) {
        Map<String, Object> body = deepCopy(object.body());
        Map<String, Object> metadata = Tree.map(body, "metadata");
        metadata.remove("name");
        metadata.remove("labels");
        Tree.map(body, "spec").remove("policyName");
        if (schedulerName != null) {
            for (Map<String, Object> condition : Tree.maps(body, "spec", "matchConditions")) {
                if (SCHEDULER_CONDITION.equals(condition.get("name"))) {
                    condition.put("expression", schedulerCondition(schedulerName));
                }
            }
        }
        return body;
    }

    @SuppressWarnings("unchecked")
    private static <T> T deepCopy(T node) {
        if (node instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((k, v) -> copy.put(String.valueOf(k), deepCopy(v)));
            return (T) copy;
        }
        if (node instanceof List<?> list) {
            return (T) list.stream().map(GangMarkerPolicy::deepCopy).toList();
        }
        return node;
    }
}
