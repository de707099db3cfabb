package dev.muster.deploy;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The least-privilege table: exactly what each component's ServiceAccount may do. A permission in
 * the chart that is not here fails the tests, and so does one missing from the chart.
 */
final class AllowedRbac {
    /** ClusterRoles shipped with Kubernetes that the second kube-scheduler is bound to (not copied). */
    static final Set<String> SCHEDULER_SYSTEM_ROLES = Set.of("system:kube-scheduler", "system:volume-scheduler");

    private static final String CORE = "";
    private static final String VOLCANO = "scheduling.volcano.sh";
    private static final String COORDINATION = "coordination.k8s.io";
    /** Kubernetes' own PodGroups (GenericWorkload) and scheduler-plugins' coscheduling PodGroups. */
    private static final List<String> OTHER_GANG_APIS = List.of("scheduling.k8s.io", "scheduling.x-k8s.io");

    private AllowedRbac() {}

    /**
     * Permissions granted by roles the chart renders, for {@code component} holding Lease {@code lease}; {@code evicts}:
     * preemption or reclaim is on (the extender alone may then evict, after reading the disruption budgets); {@code gates}:
     * the queue-admission gate is on (the extender alone may then patch pods, to lift its gate, and create Events about
     * them); {@code tlsSecret}: the Secret the component reads its TLS material from through the API, or null;
     * {@code schedulerDeployment}: the chart's kube-scheduler Deployment, which the extender restarts when the CA of that
     * Secret changes.
     */
    static Set<Permission> renderedRoles(String component, String lease, boolean evicts, boolean gates, String tlsSecret,
                                         String schedulerDeployment) {
        Set<Permission> allowed = new HashSet<>(leaseOwner(lease));
        if (tlsSecret != null) { // its own TLS Secret only, read and watched by name
            for (String verb : List.of("get", "list", "watch")) {
                allowed.add(Permission.named(CORE, "secrets", verb, tlsSecret));
            }
        }
        switch (component) {
            case "scheduler" -> { }
            case "extender" -> {
                allowed.addAll(read(CORE, "nodes", "pods"));
                allowed.addAll(read(VOLCANO, "podgroups", "queues"));
                OTHER_GANG_APIS.forEach(group -> allowed.addAll(read(group, "podgroups")));
                allowed.addAll(read("scheduling.k8s.io", "workloads")); // the templates Kubernetes PodGroups refer to
                allowed.add(Permission.of(CORE, "pods/binding", "create"));
                // wakes a pod kube-scheduler parked: its own condition only, enforced by the chart's ValidatingAdmissionPolicy
                allowed.add(Permission.of(CORE, "pods/status", "patch"));
                if (tlsSecret != null) {
                    // restarts kube-scheduler (one pod template annotation) when the CA of its TLS Secret changes, and reads
                    // that Deployment's selector to present the old CA's certificate until no pod of the old CA is left
                    allowed.add(Permission.named("apps", "deployments", "patch", schedulerDeployment));
                    allowed.add(Permission.named("apps", "deployments", "get", schedulerDeployment));
                }
                if (gates) {
                    // lifts its queue-admission gate: that gate alone, enforced by the chart's ValidatingAdmissionPolicy
                    allowed.add(Permission.of(CORE, "pods", "patch"));
                    // tells gated pods what their gang waits for: Events regarding the pod, created, never patched
                    allowed.add(Permission.of("events.k8s.io", "events", "create"));
                }
                if (evicts) {
                    allowed.add(Permission.of(CORE, "pods/eviction", "create"));
                    allowed.addAll(read("policy", "poddisruptionbudgets"));
                    // decisions recorded for the next leader, as annotations of a Lease of the extender's own
                    allowed.add(Permission.named(COORDINATION, "leases", "get", lease + "-preemptions"));
                    allowed.add(Permission.named(COORDINATION, "leases", "update", lease + "-preemptions"));
                }
            }
            case "controller" -> {
                allowed.addAll(read(CORE, "pods"));
                allowed.addAll(read(VOLCANO, "podgroups", "queues"));
                allowed.add(Permission.of(VOLCANO, "queues/status", "patch"));
                allowed.add(Permission.of(VOLCANO, "podgroups", "patch"));
                // Volcano's PodGroup CRD has no status subresource; where an installed CRD has one, the
                // controller (told by discovery) patches podgroups/status instead.
                allowed.add(Permission.of(VOLCANO, "podgroups/status", "patch"));
                // the other two gang APIs' PodGroups have a status subresource: status is patched there only
                for (String group : OTHER_GANG_APIS) {
                    allowed.addAll(read(group, "podgroups"));
                    allowed.add(Permission.of(group, "podgroups/status", "patch"));
                }
                allowed.addAll(read("scheduling.k8s.io", "workloads"));
                // Events on a PodGroup whose scheduled gang fell below its minimum (or is whole again): created, never patched
                allowed.add(Permission.of("events.k8s.io", "events", "create"));
            }
            default -> throw new IllegalArgumentException("unknown component " + component);
        }
        return allowed;
    }

    /** ClusterRoles from outside the chart a component may be bound to. */
    static Set<String> systemRoles(String component) {
        return "scheduler".equals(component) ? SCHEDULER_SYSTEM_ROLES : Set.of();
    }

    private static Set<Permission> read(String group, String... resources) {
        Set<Permission> out = new HashSet<>();
        for (String resource : resources) {
            for (String verb : List.of("get", "list", "watch")) {
                out.add(Permission.of(group, resource, verb));
            }
        }
        return out;
    }

    private static Set<Permission> leaseOwner(String lease) {
        return Set.of(
                Permission.of(COORDINATION, "leases", "create"),
                Permission.named(COORDINATION, "leases", "get", lease),
                Permission.named(COORDINATION, "leases", "update", lease));
    }
}
