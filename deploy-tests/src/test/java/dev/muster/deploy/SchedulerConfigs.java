package dev.muster.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reading and checking {@code KubeSchedulerConfiguration} ({@code kubescheduler.config.k8s.io/v1})
 * documents. kube-scheduler decodes its config strictly: an unknown or misspelt field stops it from
 * starting, so {@link #unknownFields} lists every key that is not a v1 field.
 */
final class SchedulerConfigs {
    static final String API_VERSION = "kubescheduler.config.k8s.io/v1";
    static final String KIND = "KubeSchedulerConfiguration";

    private static final Set<String> TOP_LEVEL = Set.of("apiVersion", "kind", "parallelism", "leaderElection",
            "clientConnection", "enableProfiling", "enableContentionProfiling", "percentageOfNodesToScore",
            "podInitialBackoffSeconds", "podMaxBackoffSeconds", "profiles", "extenders", "delayCacheUntilActive");
    private static final Set<String> LEADER_ELECTION = Set.of("leaderElect", "leaseDuration", "renewDeadline",
            "retryPeriod", "resourceLock", "resourceName", "resourceNamespace");
    private static final Set<String> PROFILE = Set.of("schedulerName", "percentageOfNodesToScore", "plugins",
            "pluginConfig");
    private static final Set<String> EXTENDER = Set.of("urlPrefix", "filterVerb", "preemptVerb", "prioritizeVerb",
            "weight", "bindVerb", "enableHTTPS", "tlsConfig", "httpTimeout", "nodeCacheCapable", "managedResources",
            "ignorable");
    private static final Set<String> TLS_CONFIG = Set.of("insecure", "serverName", "certFile", "keyFile", "caFile",
            "certData", "keyData", "caData");
    private static final Set<String> MANAGED_RESOURCE = Set.of("name", "ignoredByScheduler");

    private SchedulerConfigs() {}

    static Map<String, Object> load(Path file) {
        try {
            return Tree.map(Chart.yaml().load(Files.readString(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Keys that are not fields of KubeSchedulerConfiguration v1, as paths ("extenders[0].tlsConfig.foo"). */
    static List<String> unknownFields(Map<String, Object> config) {
        List<String> unknown = new ArrayList<>();
        collect(unknown, "", config, TOP_LEVEL);
        collect(unknown, "leaderElection.", Tree.map(config, "leaderElection"), LEADER_ELECTION);
        List<Map<String, Object>> profiles = Tree.maps(config, "profiles");
        for (int i = 0; i < profiles.size(); i++) {
            collect(unknown, "profiles[" + i + "].", profiles.get(i), PROFILE);
        }
        List<Map<String, Object>> extenders = Tree.maps(config, "extenders");
        for (int i = 0; i < extenders.size(); i++) {
            collect(unknown, "extenders[" + i + "].", extenders.get(i), EXTENDER);
            collect(unknown, "extenders[" + i + "].tlsConfig.", Tree.map(extenders.get(i), "tlsConfig"), TLS_CONFIG);
            List<Map<String, Object>> managed = Tree.maps(extenders.get(i), "managedResources");
            for (int j = 0; j < managed.size(); j++) {
                collect(unknown, "extenders[" + i + "].managedResources[" + j + "].", managed.get(j), MANAGED_RESOURCE);
            }
        }
        return unknown;
    }

    private static void collect(List<String> unknown, String prefix, Map<String, Object> node, Set<String> known) {
        node.keySet().stream().filter(k -> !known.contains(k)).forEach(k -> unknown.add(prefix + k));
    }

    /** The single extender entry (Muster binding every pod, --gang-marker=false); fails when there is not exactly one. */
    static Map<String, Object> onlyExtender(Map<String, Object> config) {
        List<Map<String, Object>> extenders = extenders(config);
        if (extenders.size() != 1) {
            throw new AssertionError("expected exactly one extender, found " + extenders.size());
        }
        return extenders.get(0);
    }

    /** Every extender entry, in order. */
    static List<Map<String, Object>> extenders(Map<String, Object> config) {
        return Tree.maps(config, "extenders");
    }

    /** The entry with a filterVerb; fails unless exactly one entry has one. */
    static Map<String, Object> filterExtender(Map<String, Object> config) {
        return onlyWith(config, "filterVerb");
    }

    /** The entry with a bindVerb; fails unless exactly one entry has one (kube-scheduler accepts one binder at most). */
    static Map<String, Object> bindExtender(Map<String, Object> config) {
        return onlyWith(config, "bindVerb");
    }

    private static Map<String, Object> onlyWith(Map<String, Object> config, String verb) {
        List<Map<String, Object>> with = extenders(config).stream().filter(e -> e.containsKey(verb)).toList();
        if (with.size() != 1) {
            throw new AssertionError("expected exactly one extender with " + verb + ", found " + with.size());
        }
        return with.get(0);
    }

    /**
     * The one entry that binds every pod through Muster (--gang-marker=false), made from extender-config's two entries
     * (filter and preempt for every pod; bind for gang members): the filter entry with the bind entry's bindVerb, in
     * kube-scheduler's field order (filterVerb, prioritizeVerb, bindVerb, preemptVerb), and no managedResources.
     */
    static Map<String, Object> oneExtenderBindingEveryPod(Map<String, Object> config) {
        Map<String, Object> filter = filterExtender(config);
        Object bindVerb = bindExtender(config).get("bindVerb");
        Map<String, Object> merged = new LinkedHashMap<>();
        filter.forEach((k, v) -> {
            if (k.equals("preemptVerb")) {
                merged.put("bindVerb", bindVerb);
            }
            merged.put(k, v);
        });
        return merged;
    }
}
