package dev.muster.deploy;

import dev.muster.deploy.Chart.Install;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;

/** The value sets every chart invariant is checked under, each with a name that reads in reports. */
final class Variants {
    private Variants() {}

    static Stream<Named<Install>> all() {
        return Stream.of(
                Named.of("defaults", Install.defaults()),
                Named.of("INSECURE: plain HTTP, no client certificates", Install.with("tls.insecureUnauthenticatedVerbs", true)),
                Named.of("certificates from cert-manager, the chart's own CA", Install.with("tls.source", "cert-manager")),
                Named.of("certificates from cert-manager, the user's issuer", Install.with("tls.source", "cert-manager",
                        "tls.certManager.issuerRef.name", "corp-ca", "tls.certManager.issuerRef.kind", "ClusterIssuer")),
                Named.of("mTLS on the controller's own gRPC port too", Install.with("controller.grpcTls.enabled", true)),
                Named.of("TLS Secrets read from their volumes only", Install.with("tls.readFromApi", false)),
                Named.of("no NetworkPolicy", Install.with("networkPolicy.enabled", false)),
                Named.of("one replica each", Install.with(
                        "scheduler.replicas", 1, "extender.replicas", 1, "controller.replicas", 1)),
                Named.of("one extender without leader election: it records preemptions for itself started again", Install.with(
                        "extender.replicas", 1, "extender.leaderElection.enabled", false)),
                Named.of("spread scoring", Install.with("extender.scoring", "spread")),
                Named.of("kube-scheduler picks single pods' nodes", Install.with("extender.pickNode", false)),
                Named.of("Muster's prioritize verb", Install.with("scheduler.extender.prioritize", true, "scheduler.extender.weight", 3)),
                Named.of("no gang marker: one extender binds every pod", Install.with("extender.gangMarker", false)),
                Named.of("no gang marker, plain HTTP, prioritize", Install.with("extender.gangMarker", false,
                        "tls.insecureUnauthenticatedVerbs", true, "scheduler.extender.prioritize", true)),
                Named.of("queue-admission gate: gang members gated until their queue admits them",
                        Install.with("extender.queueGate.enabled", true)),
                Named.of("queue-admission gate, custom names", Install.with("extender.queueGate.enabled", true,
                        "fullnameOverride", "gang", "extender.serviceAccount.name", "sa-ext").in("jobs", "team-a")),
                Named.of("no preemption, no reclaim: nothing evicted", Install.with("extender.preemption.enabled", false,
                        "extender.preemption.reclaim", false)),
                Named.of("reclaim only, victims after ten minutes", Install.with("extender.preemption.enabled", false,
                        "extender.preemption.victimMinRuntime", "10m")),
                Named.of("topology levels", Install.with("extender.topologyLevels[0]", "topology.kubernetes.io/zone",
                        "extender.topologyLevels[1]", "example.com/rack", "extender.topologyLevels[2]", "kubernetes.io/hostname")),
                Named.of("release name without the chart name", Install.defaults().in("prod", "batch-system")),
                Named.of("custom names, ports and leases", Install.with(
                                "fullnameOverride", "gang",
                                "scheduler.name", "gang-scheduler",
                                "scheduler.leaderElection.resourceName", "gang-scheduler",
                                "extender.leaderElection.leaseName", "gang-extender",
                                "controller.leaderElection.leaseName", "gang-controller",
                                "extender.httpPort", 9443, "extender.grpcPort", 9444, "extender.opsPort", 9445,
                                "controller.grpcPort", 9446, "controller.opsPort", 9447,
                                "scheduler.serviceAccount.name", "sa-sched",
                                "extender.serviceAccount.name", "sa-ext",
                                "controller.serviceAccount.name", "sa-ctl")
                        .in("jobs", "team-a")),
                Named.of("no PDBs, no default queue, node cache off", Install.with(
                        "scheduler.podDisruptionBudget.enabled", false,
                        "extender.podDisruptionBudget.enabled", false,
                        "controller.podDisruptionBudget.enabled", false,
                        "defaultQueue.create", false,
                        "scheduler.extender.nodeCacheCapable", false)));
    }
}
