package dev.muster.deploy;

import java.util.Set;

/**
 * The flags the extender (ServerMain) and the controller (ControllerMain) accept, as the process
 * contract in helpers/CONTEXT.md lists them. Both processes reject unknown flags at start-up, so a
 * chart that passes any other flag would crash-loop.
 */
final class ProcessFlags {
    static final Set<String> EXTENDER = Set.of("scheduler-name", "kubeconfig", "http-port", "ops-port", "grpc-port",
            "gang-deadline", "scoring", "leader-elect", "lease-name", "lease-namespace", "tls-cert-file",
            "tls-key-file", "grpc-tls-cert-file", "grpc-tls-key-file", "grpc-tls-client-ca-file", "max-body-bytes",
            "journal-window", "topology-levels", "pick-node", "warm-up", "gang-marker", "queue-admission-gate", "tls-client-ca-file", "insecure-unauthenticated-verbs",
            "preemption", "reclaim", "victim-min-runtime", "reclaim-band", "dry-run-rate", "dry-run-burst", "dry-run-process-rate",
            "tls-client-roles", "tls-secret", "scheduler-deployment", "provisioning", "provisioning-class", "provisioning-parameters");
    static final Set<String> CONTROLLER = Set.of("kubeconfig", "extender-address", "ops-port", "grpc-port",
            "flush-interval", "api-qps", "api-burst", "leader-elect", "lease-name", "lease-namespace",
            "grpc-tls-cert-file", "grpc-tls-key-file", "grpc-tls-client-ca-file", "extender-tls-ca-file",
            "extender-tls-cert-file", "extender-tls-key-file", "tls-client-roles", "extender-tls-secret");

    private ProcessFlags() {}

    static Set<String> of(String component) {
        return switch (component) {
            case "extender" -> EXTENDER;
            case "controller" -> CONTROLLER;
            default -> throw new IllegalArgumentException("no Muster process for component " + component);
        };
    }
}
